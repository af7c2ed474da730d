/**
 * The preference page reached from a campaign email through a real SMTP sink: it shows the account's public lists and
 * the subscriber's own, saves choices only from its own form, and unsubscribes from everything; the email keeps its
 * List-Unsubscribe headers and footer links.
 */
import { describe, expect, it } from 'vitest';
import { sinkTestBed } from '../campaigns/sends.test-support.ts';
import { waitFor } from '../../test/wait.ts';
import {
  keyOf,
  makeList,
  makeSubscriber,
  seedMailLinks,
  subscriberState,
} from '../marketing.test-support.ts';
import { makeMailing } from '../mailings/mailings.test-support.ts';
import { setListOptIn } from './optin.service.ts';

const { t, acct, sink, call } = sinkTestBed({ fileWorker: true });

const local = (url: string) => new URL(url.replace(/&amp;/g, '&')).pathname;
const form = (fields: [string, string][]) => ({
  method: 'POST' as const,
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  payload: new URLSearchParams(fields).toString(),
});

async function membership(subscriber: string) {
  const res = await call('GET', `/subscribers/${subscriber}`);
  return res.json().data as {
    attributes: { unsubscribed: boolean };
    relationships?: unknown;
  };
}

describe('the preference page', () => {
  it('lets a subscriber choose lists and leave everything, from the link in every campaign email', async () => {
    const customer = acct.account.customer_id;
    const news = await makeList(call, 'Clinic news');
    const flu = await makeList(call, 'Flu reminders');
    const staff = await makeList(call, 'Staff only');
    await setListOptIn(t.ctx, customer, flu, { doubleOptIn: false, public: true });
    await setListOptIn(t.ctx, customer, news, { doubleOptIn: false, public: true });
    const ann = await makeSubscriber(call, 'ann@patients.example', { first_name: 'Ann' }, news);
    const mailing = await makeMailing(call, 'Opening hours', {
      html_part: '<html><body><p>Hello {{first_name}}</p></body></html>',
      text_part: 'Hello {{first_name}}',
      from_email: `news@${acct.domain}`,
    });
    const res = await call('POST', '/campaign_mailing_sends', {
      campaign_mailing_id: mailing,
      campaign_mailing_send: {
        subscription_list_id: news,
        from_email: `news@${acct.domain}`,
        customer_name: 'Riverside Clinic',
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const mail = await (await waitFor(() => sink.received[0], 15_000, 20, 'the campaign email')).parsed();
    const html = String(mail.html);
    const prefs = /href="([^"]+\/p\/[^"]+)"/.exec(html)![1]!;
    expect(html).toContain('Manage your subscriptions');
    expect(mail.text).toContain(`Manage your subscriptions: ${prefs.replace(/&amp;/g, '&')}`);
    expect(mail.headerLines.some((h) => h.key === 'list-unsubscribe' && /\/u\//.test(h.line))).toBe(true);

    const page = await t.app.inject({ method: 'GET', url: local(prefs) });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("form-action 'self'");
    expect(page.body).toContain('ann@patients.example');
    expect(page.body).toContain('Riverside Clinic');
    expect(page.body).toMatch(new RegExp(`value="${news}" checked> Clinic news`));
    expect(page.body).toMatch(new RegExp(`value="${flu}"> Flu reminders`));
    expect(page.body).not.toContain('Staff only');
    expect(staff).toBeDefined();
    const key = /name="form_key" value="([^"]+)"/.exec(page.body)![1]!;

    // A post without the page's key (from another site) changes nothing.
    const forged = await t.app.inject({
      url: local(prefs),
      ...form([
        ['scope', 'lists'],
        ['list', flu],
      ]),
    });
    expect(forged.statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: local(prefs) })).body).toMatch(
      new RegExp(`value="${news}" checked>`),
    );

    // Join the flu list, leave the news list.
    const saved = await t.app.inject({
      url: local(prefs),
      ...form([
        ['form_key', key],
        ['scope', 'lists'],
        ['list', flu],
      ]),
    });
    expect(saved.statusCode).toBe(200);
    expect(saved.body).toContain('Your choices are saved.');
    expect(saved.body).toMatch(new RegExp(`value="${flu}" checked> Flu reminders`));
    expect(saved.body).toMatch(new RegExp(`value="${news}"> Clinic news`));
    const subs = (await call('GET', `/subscriptions?use_pagination=true&items=100`)).json().data as {
      subscriber_id: number;
      subscription_list_id: string;
      unsubscribed_at: string | null;
    }[];
    const annKey = await keyOf(t, 'subscribers', ann);
    const on = (list: string) =>
      subs.find((s) => String(s.subscription_list_id) === list && s.subscriber_id === annKey);
    expect(on(flu)?.unsubscribed_at).toBeNull();
    expect(on(news)?.unsubscribed_at).toEqual(expect.any(String));

    // Leave everything.
    const all = await t.app.inject({
      url: local(prefs),
      ...form([
        ['form_key', key],
        ['scope', 'all'],
      ]),
    });
    expect(all.statusCode).toBe(200);
    expect(all.body).toContain('You are unsubscribed from all emails.');
    expect((await membership(ann)).attributes.unsubscribed).toBe(true);

    // A forged link is not found.
    const bad = local(prefs).replace(/.$/, (ch) => (ch === 'A' ? 'B' : 'A'));
    expect((await t.app.inject({ method: 'GET', url: bad })).statusCode).toBe(404);
  });

  it('saves nothing from a form its schema refuses, and shows the page again with a notice', async () => {
    const links = await seedMailLinks(t, acct, call, 'ivy@patients.example');
    const page = await t.app.inject({ method: 'GET', url: links.preferences });
    const key = /name="form_key" value="([^"]+)"/.exec(page.body)![1]!;
    const before = await subscriberState(t, links.subscriber);
    const cases: [[string, string][], number][] = [
      [
        [
          ['scope', 'all'],
          ['list', links.list],
        ],
        403,
      ],
      [
        [
          ['form_key', key],
          ['form_key', key],
          ['scope', 'all'],
        ],
        403,
      ],
      [
        [
          ['form_key', key],
          ['scope', 'all'],
          ['scope', 'all'],
        ],
        400,
      ],
      [
        [
          ['form_key', key],
          ['scope', 'lists'],
          ['list', 'x'.repeat(10_000)],
        ],
        400,
      ],
    ];
    for (const [fields, status] of cases) {
      const res = await t.app.inject({ url: links.preferences, ...form(fields) });
      expect(res.statusCode, fields.map(([k]) => k).join()).toBe(status);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      if (status === 400) {
        expect(res.body).toContain(
          '<p class="refused" role="alert">Nothing was saved: the form could not be read. Choose again below.</p>',
        );
        expect(res.body).toMatch(new RegExp(`value="${links.list}" checked>`));
      } else expect(res.body).toContain('This form did not come from your preference page.');
      expect(await subscriberState(t, links.subscriber)).toEqual(before);
    }
    // A body of another type is not a form of the page: it is ignored, so it carries no key.
    const json = await t.app.inject({
      method: 'POST',
      url: links.preferences,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ form_key: key, scope: 'lists', list: 'x'.repeat(10_000) }),
    });
    expect(json.statusCode).toBe(403);
    expect(await subscriberState(t, links.subscriber)).toEqual(before);
    const saved = await t.app.inject({
      url: links.preferences,
      ...form([
        ['form_key', key],
        ['scope', 'lists'],
      ]),
    });
    expect(saved.body).toContain('Your choices are saved.');
    expect(saved.body).toMatch(new RegExp(`value="${links.list}">`));
  });
});
