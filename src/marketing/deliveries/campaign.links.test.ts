/**
 * Tracked link targets of campaign mail are stored sealed: the raw rows of a send's links and of a delivery's clicks
 * hold no target in clear, while the click still leads to the target and analytics still show and sort by it.
 */
import { describe, expect, it } from 'vitest';
import { startDeliveryWorker } from '../../delivery/delivery.test-support.ts';
import { waitFor } from '../../test/wait.ts';
import { keyOf, makeList, makeSubscriber } from '../marketing.test-support.ts';
import { makeMailing } from '../mailings/mailings.test-support.ts';
import { sinkTestBed } from '../campaigns/sends.test-support.ts';

const HTML = `<html><body><p>Hello</p>
<a href="https://results.example.org/case/77312?patient=ann">Your result</a>
<a href="https://clinic.example.org/about">About us</a></body></html>`;

const { t, acct, sink, call } = sinkTestBed();

/** Every stored target of the account's campaign links, as the database holds them. */
async function rawTargets(sendId: number): Promise<string[]> {
  const db = t.ctx.database.db;
  const links = await db
    .selectFrom('campaign_send_links')
    .select('target_url')
    .where('send_id', '=', sendId)
    .execute();
  const clicks = await db
    .selectFrom('marketing_link_clicks')
    .select('target_url')
    .where('send_id', '=', sendId)
    .execute();
  return [...links, ...clicks].map((r) => r.target_url);
}

describe('campaign link targets', () => {
  it('are stored sealed, lead to the target when clicked, and read back in analytics', async () => {
    const list = await makeList(call, 'Results');
    await makeSubscriber(call, 'ann@patients.example', { first_name: 'Ann' }, list);
    const mailing = await makeMailing(call, 'Your result', {
      html_part: HTML,
      from_email: `news@${acct.domain}`,
    });
    const worker = startDeliveryWorker(t);
    try {
      const res = await call('POST', '/campaign_mailing_sends', {
        campaign_mailing_id: mailing,
        campaign_mailing_send: { subscription_list_id: list, from_email: `news@${acct.domain}` },
      });
      expect(res.statusCode, res.body).toBe(200);
      const sendId = String(res.headers['sealpost-campaign-mailing-send-id']);
      const sendKey = await keyOf(t, 'campaign_mailing_sends', sendId);
      await waitFor(async () => sink.received.length === 1, 15_000, 50, 'the email arriving');

      const html = String((await sink.received[0]!.parsed()).html);
      const clicks = [...html.matchAll(/href="([^"]*\/t\/m\/c\/[^"]+)"/g)].map(
        (m) => new URL(m[1]!).pathname,
      );
      expect(clicks).toHaveLength(2);
      const first = await t.app.inject({ method: 'GET', url: clicks[0]! });
      expect(first.statusCode).toBe(302);
      expect(first.headers.location).toBe('https://results.example.org/case/77312?patient=ann');
      expect((await t.app.inject({ method: 'GET', url: clicks[1]! })).headers.location).toBe(
        'https://clinic.example.org/about',
      );

      const stored = await rawTargets(sendKey);
      expect(stored).toHaveLength(4); // two links of the send, two clicked links of the delivery
      for (const raw of stored) {
        expect(raw).toMatch(/^v\d+\./);
        expect(raw).not.toContain('example.org');
        expect(raw).not.toContain('77312');
      }

      // Analytics open the targets, and sort by them though SQL only sees sealed text.
      const byLink = await call(
        'GET',
        `/analytics/tracking_links_by_unique_link?campaign_mailing_send_id=${sendId}&order_by=target_url&order=asc`,
      );
      expect(byLink.statusCode, byLink.body).toBe(200);
      expect((byLink.json().data as { target_url: string }[]).map((r) => r.target_url)).toEqual([
        'https://clinic.example.org/about',
        'https://results.example.org/case/77312?patient=ann',
      ]);
      const links = await call(
        'GET',
        `/tracking_links?campaign_mailing_send_id=${sendId}&order_by=target_url&order=desc`,
      );
      expect(links.statusCode, links.body).toBe(200);
      expect(
        (links.json().data as { attributes: { target_url: string; clicked: number } }[]).map(
          (l) => l.attributes,
        ),
      ).toEqual([
        expect.objectContaining({
          target_url: 'https://results.example.org/case/77312?patient=ann',
          clicked: 1,
        }),
        expect.objectContaining({ target_url: 'https://clinic.example.org/about', clicked: 1 }),
      ]);

      // A target stored in clear text by an earlier version still reads as it is.
      await t.ctx.database.db
        .updateTable('campaign_send_links')
        .set({ target_url: 'https://clinic.example.org/legacy' })
        .where('send_id', '=', sendKey)
        .where('html_id', '=', 1)
        .execute();
      const legacy = await call(
        'GET',
        `/analytics/tracking_links_by_unique_link?campaign_mailing_send_id=${sendId}&order_by=html_id&order=asc`,
      );
      expect((legacy.json().data as { target_url: string }[]).map((r) => r.target_url)).toEqual([
        'https://results.example.org/case/77312?patient=ann',
        'https://clinic.example.org/legacy',
      ]);
    } finally {
      await worker.stop(2000);
    }
  });
});
