/**
 * A campaign end to end: a mailing sent to a list through a real STARTTLS SMTP sink, then opens, clicks and
 * unsubscribes through the real URLs found in the received mail, then the send, mailing, subscriber and analytics
 * counters agree with what happened.
 */
import { describe, expect, it } from 'vitest';
import type { ParsedMail } from 'mailparser';
import { type ReceivedMail } from '../../test/smtp-sink.ts';
import { waitFor } from '../../test/wait.ts';
import { makeList, makeSubscriber } from '../marketing.test-support.ts';
import { makeMailing } from '../mailings/mailings.test-support.ts';
import { sinkTestBed } from './sends.test-support.ts';

const HTML = `<html><body><p>Hello {{first_name}}, your colour is {{favourite_colour}}.</p>
<a href="https://clinic.example.org/flu-shots">Book a flu shot</a>
<a href="https://clinic.example.org/hours">Opening hours</a>
<a href="https://clinic.example.org/p?who={{email}}">Personal page</a></body></html>`;

const { t, acct, sink, call, startWorker } = sinkTestBed();

/** Path and query of an absolute URL found in mail, for app.inject. */
const local = (url: string) => {
  const u = new URL(url.replace(/&amp;/g, '&'));
  return u.pathname + u.search;
};

async function sendState(id: string) {
  const res = await call('GET', `/campaign_mailing_sends/${id}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.attributes as Record<string, number | string | null>;
}

/** A raw header line's value (mailparser folds List-* headers into one structure, so they are read from the lines). */
const headerOf = (mail: ParsedMail, name: string) =>
  mail.headerLines.find((h) => h.key === name)?.line.replace(/^[^:]+:\s*/, '');

async function mailsTo(address: string): Promise<ParsedMail[]> {
  const mine: ReceivedMail[] = sink.received.filter((m) => m.to.includes(address));
  return Promise.all(mine.map((m) => m.parsed()));
}

describe('a campaign to a list', () => {
  it('delivers personalised mail once per subscribed member, and counts opens, clicks and unsubscribes', async () => {
    const list = await makeList(call, 'Flu season');
    const ann = await makeSubscriber(
      call,
      'ann@patients.example',
      { first_name: 'Ann', custom_fields: [{ name: 'favourite_colour', value: 'teal' }] },
      list,
    );
    const bob = await makeSubscriber(call, 'bob@patients.example', { first_name: 'Bob' }, list);
    const cat = await makeSubscriber(call, 'cat@patients.example', { first_name: 'Cat' }, list);
    const dan = await makeSubscriber(call, 'dan@patients.example', { first_name: 'Dan' }, list);
    await makeSubscriber(call, 'eve@patients.example', { first_name: 'Eve' }); // not on the list
    expect(
      (await call('POST', `/subscribers/${dan}/unsubscribe`, { subscription_list_id: list })).statusCode,
    ).toBe(200);
    const mailing = await makeMailing(call, 'Flu shots are here, {{first_name}}', {
      html_part: HTML,
      text_part: 'Hello {{first_name}}, book at https://clinic.example.org/flu-shots',
      from_email: `news@${acct.domain}`,
      from_name: 'Clinic News',
    });

    startWorker();
    const res = await call('POST', '/campaign_mailing_sends', {
      campaign_mailing_id: mailing,
      campaign_mailing_send: {
        subscription_list_id: list,
        from_email: `news@${acct.domain}`,
        from_name: 'Clinic News',
        sender_email: 'editor@clinic.example.org',
        customer_name: 'Riverside Clinic',
        recipient_emails: ['proof@clinic.example.org'],
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({});
    const sendId = String(res.headers['sealpost-campaign-mailing-send-id']);
    await waitFor(async () => (await sendState(sendId)).state === 'sent', 15_000, 50, 'the send finishing');

    // One email per subscribed member plus the extra recipient; nobody unsubscribed or off the list.
    expect(sink.received.map((m) => m.to[0]).sort()).toEqual(
      [
        'ann@patients.example',
        'bob@patients.example',
        'cat@patients.example',
        'proof@clinic.example.org',
      ].sort(),
    );
    expect(sink.received.every((m) => m.secure)).toBe(true);
    const [annMail] = await mailsTo('ann@patients.example');
    expect(annMail!.subject).toBe('Flu shots are here, Ann');
    expect(annMail!.from?.value[0]).toMatchObject({ address: `news@${acct.domain}`, name: 'Clinic News' });
    expect(String(annMail!.html)).toContain('Hello Ann, your colour is teal.');
    expect(annMail!.text).toContain('Hello Ann, book at');
    expect(annMail!.headers.get('dkim-signature')).toBeDefined();
    const listUnsubscribe = String(headerOf(annMail!, 'list-unsubscribe'));
    const unsubscribeUrl = /<(https?:\/\/[^>]+\/u\/[^>]+)>/.exec(listUnsubscribe)?.[1];
    expect(unsubscribeUrl).toBeDefined();
    expect(headerOf(annMail!, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    // The extra recipient gets the content untracked, without an unsubscribe link.
    const [proof] = await mailsTo('proof@clinic.example.org');
    expect(String(proof!.html)).toContain('href="https://clinic.example.org/flu-shots"');
    expect(String(proof!.html)).not.toContain('/t/m/');
    expect(headerOf(proof!, 'list-unsubscribe')).toBeUndefined();

    // Links are tracked by position; a personalised link target is left as it is.
    const annHtml = String(annMail!.html);
    const clicks = [...annHtml.matchAll(/href="([^"]*\/t\/m\/c\/[^"]+)"/g)].map((m) => m[1]!);
    expect(clicks).toHaveLength(2);
    expect(annHtml).toContain('href="https://clinic.example.org/p?who=ann@patients.example"');
    const pixel = /src="([^"]*\/t\/m\/o\/[^"]+)"/.exec(annHtml)![1]!;

    // Ann opens twice and clicks the first link twice; Bob clicks the second link without loading images.
    expect((await t.app.inject({ method: 'GET', url: local(pixel) })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: local(pixel) })).statusCode).toBe(200);
    for (let i = 0; i < 2; i++) {
      const r = await t.app.inject({ method: 'GET', url: local(clicks[0]!) });
      expect(r.statusCode).toBe(302);
      expect(r.headers.location).toBe('https://clinic.example.org/flu-shots');
    }
    const [bobMail] = await mailsTo('bob@patients.example');
    const bobClick = [...String(bobMail!.html).matchAll(/href="([^"]*\/t\/m\/c\/[^"]+)"/g)][1]![1]!;
    expect((await t.app.inject({ method: 'GET', url: local(bobClick) })).headers.location).toBe(
      'https://clinic.example.org/hours',
    );

    // A scanner following the unsubscribe link changes nothing; the confirm page's button and one-click POST do.
    const [catMail] = await mailsTo('cat@patients.example');
    const catUnsubscribe = /<(https?:\/\/[^>]+)>/.exec(String(headerOf(catMail!, 'list-unsubscribe')))![1]!;
    const confirm = await t.app.inject({ method: 'GET', url: local(catUnsubscribe) });
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('cat@patients.example');
    expect(confirm.body).toContain('Riverside Clinic');
    expect(
      (await call('GET', `/subscribers/${cat}`)).json().data.attributes.subscription_lists,
    ).toContainEqual(expect.objectContaining({ id: Number(list), unsubscribed: false }));
    const oneClick = await t.app.inject({
      method: 'POST',
      url: local(catUnsubscribe),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(oneClick.statusCode).toBe(200);
    const again = await t.app.inject({
      method: 'POST',
      url: local(catUnsubscribe),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(again.statusCode).toBe(200);
    const catNow = (await call('GET', `/subscribers/${cat}`)).json().data.attributes;
    expect(catNow.unsubscribed).toBe(false);
    expect(catNow.subscription_lists).toContainEqual(
      expect.objectContaining({ id: Number(list), unsubscribed: true }),
    );
    // Ann leaves everything through the confirm page's second button.
    const global = await t.app.inject({
      method: 'POST',
      url: local(unsubscribeUrl!),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'scope=all',
    });
    expect(global.statusCode).toBe(200);
    expect((await call('GET', `/subscribers/${ann}`)).json().data.attributes.unsubscribed).toBe(true);

    // Counters: the send, its mailing, the subscribers, the analytics.
    expect(await sendState(sendId)).toMatchObject({
      state: 'sent',
      audience_count: 3,
      sent_count: 3,
      delivered_count: 3,
      viewed_count: 2,
      clicked_count: 2,
      bounced_count: 0,
      unsubscribed_count: 1,
    });
    const listed = (await call('GET', '/campaign_mailings'))
      .json()
      .data.find((m: { id: number }) => String(m.id) === mailing);
    expect(listed.attributes).toMatchObject({
      sent_count: 3,
      delivered_count: 3,
      viewed_count: 2,
      clicked_count: 2,
      unsubscribed_count: 1,
    });
    const annStats = (await call('GET', `/subscribers/${ann}?with_stats=true`)).json().data.attributes
      .statistics;
    expect(annStats).toMatchObject({
      deliveries: 1,
      delivered: 1,
      opened: 1,
      clicked: 1,
      unsubscribed: 0,
      global_unsubscribed: 1,
    });
    const bobStats = (await call('GET', `/subscribers/${bob}?with_stats=true`)).json().data.attributes
      .statistics;
    expect(bobStats).toMatchObject({ deliveries: 1, delivered: 1, opened: 1, clicked: 1 });

    const totals = await call(
      'GET',
      `/analytics/campaign_mailing_send_totals?campaign_mailing_send_id=${sendId}`,
    );
    expect(totals.statusCode, totals.body).toBe(200);
    expect(totals.json().data).toMatchObject({
      delivered: 3,
      viewed: 2,
      clicked: 2,
      bounced: 0,
      soft_bounced: 0,
      hard_bounced: 0,
      unsubscribed: 1,
      global_unsubscribed: 1,
    });
    const byLink = await call(
      'GET',
      `/analytics/tracking_links_by_unique_link?campaign_mailing_send_id=${sendId}`,
    );
    expect(byLink.statusCode, byLink.body).toBe(200);
    const rows = byLink.json().data as { html_id: number; target_url: string; clicked: number }[];
    expect(rows.find((r) => r.html_id === 0)).toMatchObject({
      target_url: 'https://clinic.example.org/flu-shots',
      clicked: 2,
    });
    expect(rows.find((r) => r.html_id === 1)).toMatchObject({
      target_url: 'https://clinic.example.org/hours',
      clicked: 1,
    });
    const who = await call(
      'GET',
      `/analytics/subscribers_by_tracking_link?campaign_mailing_send_id=${sendId}&html_id=0`,
    );
    expect(who.statusCode, who.body).toBe(200);
    expect((who.json().data as { attributes: { email: string } }[]).map((s) => s.attributes.email)).toEqual([
      'ann@patients.example',
    ]);
    const links = await call('GET', `/tracking_links?campaign_mailing_send_id=${sendId}`);
    expect(links.statusCode, links.body).toBe(200);
    // Every link of every email is listed; the two clicked links carry their counts, the others none.
    const linkClicks = (links.json().data as { attributes: { clicked: number } }[]).map(
      (l) => l.attributes.clicked,
    );
    expect(linkClicks.filter((n) => n > 0).sort()).toEqual([1, 2]);
    expect(linkClicks.length).toBeGreaterThan(2);
    const table = await call('GET', '/analytics/campaign_mailing_sends_table');
    expect(table.statusCode, table.body).toBe(200);
    expect(table.json().data).toContainEqual(
      expect.objectContaining({ subscription_list_name: 'Flu season' }),
    );
  });

  it('refuses bad sends with clear errors and stores nothing', async () => {
    const list = await makeList(call, 'Errors');
    const mailing = await makeMailing(call, 'Error checks', { from_email: `news@${acct.domain}` });
    const before = await t.ctx.database.db
      .selectFrom('campaign_mailing_sends')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const cases: [unknown, number, string][] = [
      [
        { campaign_mailing_id: mailing, campaign_mailing_send: { from_name: 'News' } },
        400,
        'subscription_list_id',
      ],
      [
        { campaign_mailing_id: '999999', campaign_mailing_send: { subscription_list_id: list } },
        404,
        'marketing.mailing_not_found',
      ],
      [
        { campaign_mailing_id: mailing, campaign_mailing_send: { subscription_list_id: '999999' } },
        404,
        'marketing.list_not_found',
      ],
      [
        {
          campaign_mailing_id: mailing,
          campaign_mailing_send: { subscription_list_id: list, from_email: 'news@elsewhere.example' },
        },
        422,
        'marketing.sender_invalid',
      ],
      [
        {
          campaign_mailing_id: mailing,
          campaign_mailing_send: { subscription_list_id: list, from_email: 'not an address' },
        },
        400,
        'from_email',
      ],
      [
        {
          campaign_mailing_id: mailing,
          campaign_mailing_send: { subscription_list_id: list, recipient_emails: ['x@'] },
        },
        400,
        'recipient_emails[0]',
      ],
      [{ campaign_mailing_send: { subscription_list_id: list } }, 400, 'campaign_mailing_id'],
      [
        {
          campaign_mailing_id: mailing,
          campaign_mailing_send: { subscription_list_id: list, subject: 'Hi {{#if}}' },
        },
        400,
        'marketing.template_invalid',
      ],
      [
        {
          campaign_mailing_id: mailing,
          campaign_mailing_send: { subscription_list_id: list, subject: 'Hi\r\nBcc: x@y.z' },
        },
        400,
        'subject',
      ],
      [
        {
          campaign_mailing_id: mailing,
          campaign_mailing_send: { subscription_list_id: list, from_name: 'A\nB' },
        },
        400,
        'from_name',
      ],
    ];
    for (const [body, status, mention] of cases) {
      const r = await call('POST', '/campaign_mailing_sends', body);
      expect(r.statusCode, `${JSON.stringify(body)} → ${r.body}`).toBe(status);
      expect(r.body).toContain(mention);
    }
    const after = await t.ctx.database.db
      .selectFrom('campaign_mailing_sends')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });
});
