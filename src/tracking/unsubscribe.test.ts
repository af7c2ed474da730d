/**
 * The unsubscribe POST of a marketing email's `/u/<token>` link: a form its schema refuses (a field repeated or too
 * long) changes nothing and shows the confirm page again; the page's buttons and one-click posts still unsubscribe.
 */
import { describe, expect, it } from 'vitest';
import {
  keyOf,
  marketingTestBed,
  seedMailLinks,
  subscriberState,
} from '../marketing/marketing.test-support.ts';

const { t, a, call } = marketingTestBed();

const post = (url: string, payload: string, type = 'application/x-www-form-urlencoded') =>
  t.app.inject({ method: 'POST', url, headers: { 'content-type': type }, payload });

describe('the unsubscribe post', () => {
  it('shows the confirm page again with a notice for a form its schema refuses, and unsubscribes no one', async () => {
    const links = await seedMailLinks(t, a, call, 'ida@patients.example');
    const before = await subscriberState(t, links.subscriber);
    for (const payload of [
      'scope=all&scope=all',
      `scope=${'x'.repeat(10_000)}`,
      `List-Unsubscribe=${'x'.repeat(10_000)}`,
    ]) {
      const res = await post(links.unsubscribe, payload);
      expect(res.statusCode, payload.slice(0, 30)).toBe(400);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['content-security-policy']).toContain("form-action 'self'");
      expect(res.body).toContain(
        '<p class="refused" role="alert">Nothing was changed: the form could not be read. Choose again below.</p>',
      );
      expect(res.body).toContain('Stop emails to <strong>ida@patients.example</strong>?');
      expect(res.body).toContain('<input type="hidden" name="scope" value="all">');
      expect(await subscriberState(t, links.subscriber)).toEqual(before);
    }
    const forged = links.unsubscribe.replace(/.$/, (ch) => (ch === 'A' ? 'B' : 'A'));
    expect((await post(forged, 'scope=all&scope=all')).statusCode).toBe(404);
  });

  it('unsubscribes from the list for a one-click post, and a post without a form (no body, another type)', async () => {
    for (const [email, send] of [
      ['one-click@patients.example', (url: string) => post(url, 'List-Unsubscribe=One-Click')],
      ['bodyless@patients.example', (url: string) => t.app.inject({ method: 'POST', url })],
      ['plain@patients.example', (url: string) => post(url, 'scope=all', 'text/plain')],
      ['json@patients.example', (url: string) => post(url, '{"scope":["all"]}', 'application/json')],
    ] as const) {
      const links = await seedMailLinks(t, a, call, email);
      const res = await send(links.unsubscribe);
      expect(res.statusCode, email).toBe(200);
      expect(res.body).toContain('is unsubscribed from the list');
      const state = await subscriberState(t, links.subscriber);
      const list = await keyOf(t, 'subscription_lists', links.list);
      expect(state.lists.find((m) => m.list_id === list)?.unsubscribed).toBe(1);
      expect(state.subscriber.unsubscribed_at).toBeNull();
    }
  });

  it("unsubscribes from everything for the confirm page's second button", async () => {
    const links = await seedMailLinks(t, a, call, 'everything@patients.example');
    const res = await post(links.unsubscribe, 'scope=all');
    expect(res.statusCode).toBe(200);
    expect((await subscriberState(t, links.subscriber)).subscriber.unsubscribed_at).not.toBeNull();
  });
});
