import { describe, expect, it } from 'vitest';
import { marketingClient } from '../marketing.test-support.ts';
import { scenarioTestBed, readers, URL_A, URL_B } from './analytics-scenario.test-support.ts';

const { f, s } = scenarioTestBed();
const { data, ids, refused } = readers(() => f.call);

describe('GET /analytics/campaign_mailing_sends_table', () => {
  const table = '/analytics/campaign_mailing_sends_table';
  const search = (q: string) => ids(`${table}?search=${encodeURIComponent(q)}`);

  it('lists the sends that have started, newest first, with their mailing', async () => {
    const rows = await data(table, marketingClient(f.t, f.a, { bare: true }));
    expect(rows).toEqual([
      {
        id: s.fluSend,
        uuid: s.uuids.fluSend,
        marketing_email_id: s.fluMailing,
        campaign_mailing_id: s.fluMailing,
        campaign_mailing_created_at: new Date(200).toISOString(),
        sent_at: new Date(21_000).toISOString(),
        subscription_list_name: 'Patients',
      },
      {
        id: s.springSend,
        uuid: s.uuids.springSend,
        marketing_email_id: s.springMailing,
        campaign_mailing_id: s.springMailing,
        campaign_mailing_created_at: new Date(100).toISOString(),
        sent_at: new Date(11_000).toISOString(),
        subscription_list_name: 'Newsletter',
      },
    ]);
  });

  it('searches a Field:Value pair, text fields by containment in any letter case', async () => {
    expect(await search('subscription_list_name:Newsletter')).toEqual([s.springSend]);
    expect(await search('subscription_list_name:PATIENT')).toEqual([s.fluSend]);
    expect(await search('subject:flu')).toEqual([s.fluSend]);
    expect(await search('subject: Spring checkup ')).toEqual([s.springSend]);
    expect(await search('subject:%')).toEqual([]);
    expect(await search('Subject:e:s')).toEqual([]);
    expect(await search(`id:${s.springSend}`)).toEqual([s.springSend]);
    expect(await search(`id:${s.uuids.springSend}`)).toEqual([s.springSend]);
    expect(await search(`campaign_mailing_id:${s.uuids.springMailing}`)).toEqual([s.springSend]);
    expect(await search(`campaign_mailing_id:${s.fluMailing}`)).toEqual([s.fluSend]);
    expect(await search(`marketing_email_id:${s.springMailing}`)).toEqual([s.springSend]);
    expect(await search('')).toEqual([s.fluSend, s.springSend]);
  });

  it('accepts the search as a JSON object of one field', async () => {
    expect(await search('{"subject": "spring"}')).toEqual([s.springSend]);
    expect(await search(`{"id": "${s.fluSend}"}`)).toEqual([s.fluSend]);
  });

  it.each([
    'color:red',
    ':Newsletter',
    'subject:',
    'id:abc',
    'campaign_mailing_id:-1',
    '{"subject": "a", "id": 1}',
    '{"subject": ["a"]}',
    '{broken',
    '[]',
  ])('refuses the search %s with 400 naming search', async (q) => {
    const body = await refused(`${table}?search=${encodeURIComponent(q)}`, 400, 'request.invalid');
    expect(body.fields.map((f) => f.field)).toEqual(['search']);
  });

  it('sorts by each documented key and pages', async () => {
    expect(await ids(`${table}?order_by=subscription_list_name&order=asc`)).toEqual([
      s.springSend,
      s.fluSend,
    ]);
    expect(await ids(`${table}?order_by=subject&order=asc`)).toEqual([s.fluSend, s.springSend]);
    expect(await ids(`${table}?order_by=campaign_mailing_created_at`)).toEqual([s.fluSend, s.springSend]);
    expect(await ids(`${table}?order_by=sent_at&order=asc`)).toEqual([s.springSend, s.fluSend]);
    expect(await ids(`${table}?items=1&page=2`)).toEqual([s.springSend]);
    expect(await ids(`${table}?items=1&page=3`)).toEqual([]);
  });

  it.each([
    ['order_by=id', 'order_by'],
    ['order=sideways', 'order'],
    ['items=0', 'items'],
    ['page=-1', 'page'],
  ])('refuses %s with 400', async (query, field) => {
    const body = await refused(`${table}?${query}`, 400, 'request.invalid');
    expect(body.fields.map((f) => f.field)).toContain(field);
  });
});

describe('GET /analytics/tracking_links_by_unique_link', () => {
  const path = (q: string) =>
    `/analytics/tracking_links_by_unique_link?campaign_mailing_send_id=${s.springSend}${q}`;

  it('lists each link of the send by position, last first, with its total clicks', async () => {
    expect(await data(path(''))).toEqual([
      { html_id: 2, target_url: URL_A, clicked: 0 },
      { html_id: 1, target_url: URL_B, clicked: 1 },
      { html_id: 0, target_url: URL_A, clicked: 4 },
    ]);
  });

  it('sorts by clicks or URL and pages', async () => {
    const htmlIds = async (q: string) =>
      ((await data(path(q))) as { html_id: number }[]).map((r) => r.html_id);
    expect(await htmlIds('&order_by=clicked')).toEqual([0, 1, 2]);
    expect(await htmlIds('&order_by=html_id&order=asc')).toEqual([0, 1, 2]);
    expect(await htmlIds('&order_by=target_url&order=asc')).toEqual([0, 2, 1]);
    expect(await htmlIds('&order=asc&items=2&page=2')).toEqual([2]);
  });

  it('requires a send of the account', async () => {
    const missing = await refused('/analytics/tracking_links_by_unique_link', 400, 'request.invalid');
    expect(missing.fields.map((f) => f.field)).toEqual(['campaign_mailing_send_id']);
    await refused(
      '/analytics/tracking_links_by_unique_link?campaign_mailing_send_id=',
      400,
      'request.invalid',
    );
    await refused(
      `/analytics/tracking_links_by_unique_link?campaign_mailing_send_id=${s.foreignSend}`,
      404,
      'marketing.send_not_found',
    );
    await refused(path('&order_by=clicks'), 400, 'request.invalid');
  });
});

describe('GET /analytics/subscribers_by_tracking_link', () => {
  const path = (htmlId: string | number, q = '') =>
    `/analytics/subscribers_by_tracking_link?campaign_mailing_send_id=${s.springSend}&html_id=${htmlId}${q}`;

  it('lists the subscribers who clicked the link, newest subscriber first, with their custom fields', async () => {
    const rows = await data(path(0));
    expect(rows.map((r: { id: string }) => r.id)).toEqual([s.subscribers.bob, s.subscribers.alice]);
    expect(rows[1]).toEqual({
      id: s.subscribers.alice,
      type: 'subscriber',
      attributes: {
        email: 'alice@example.org',
        unsubscribed: false,
        first_name: 'Alice',
        last_name: 'Young',
        custom_fields: [
          { subscriber_custom_field_type_id: s.fields.clinic, value: 'North' },
          { subscriber_custom_field_type_id: s.fields.plan, value: 'Gold' },
        ],
      },
    });
  });

  it('answers per link: one clicker, or none for a link nobody clicked', async () => {
    expect((await data(path(1))).map((r: { id: string }) => r.id)).toEqual([s.subscribers.alice]);
    expect(await data(path(2))).toEqual([]);
  });

  it('sorts by subscriber attributes and pages', async () => {
    const emails = async (q: string) =>
      ((await data(path(0, q))) as { attributes: { email: string } }[]).map((r) => r.attributes.email);
    expect(await emails('&order_by=email&order=asc')).toEqual(['alice@example.org', 'bob@example.org']);
    expect(await emails('&order_by=last_name')).toEqual(['alice@example.org', 'bob@example.org']);
    expect(await emails('&order_by=first_name&items=1&page=2')).toEqual(['alice@example.org']);
  });

  it('answers 404 for a position that is not a link of the send, or a send of another account', async () => {
    await refused(path(7), 404, 'marketing.tracking_link_not_found');
    await refused(
      `/analytics/subscribers_by_tracking_link?campaign_mailing_send_id=${s.foreignSend}&html_id=0`,
      404,
      'marketing.send_not_found',
    );
  });

  it.each([
    ['', 'html_id'],
    ['&html_id=abc', 'html_id'],
    ['&html_id=-1', 'html_id'],
    ['&html_id=1.5', 'html_id'],
    ['&html_id=0&order_by=id', 'order_by'],
  ])('refuses the query %s with 400 naming the parameter', async (q, field) => {
    const body = await refused(
      `/analytics/subscribers_by_tracking_link?campaign_mailing_send_id=${s.springSend}${q}`,
      400,
      'request.invalid',
    );
    expect(body.fields.map((f) => f.field)).toContain(field);
  });

  it('lists each subscriber who clicked any link of the send once when tracking_link_id is 0', async () => {
    const base = `/analytics/subscribers_by_tracking_link?campaign_mailing_send_id=${s.springSend}`;
    const rows = await data(`${base}&tracking_link_id=0&order_by=email&order=asc`);
    expect(rows.map((r: { id: string }) => r.id)).toEqual([s.subscribers.alice, s.subscribers.bob]);
    expect((await data(`${base}&tracking_link_id=0&html_id=1`)).map((r: { id: string }) => r.id)).toEqual([
      s.subscribers.alice,
    ]);
  });

  it('refuses a tracking_link_id other than 0 with 400 naming it', async () => {
    const body = await refused(
      `/analytics/subscribers_by_tracking_link?campaign_mailing_send_id=${s.springSend}&tracking_link_id=3`,
      400,
      'request.invalid',
    );
    expect(body.fields.map((f) => f.field)).toContain('tracking_link_id');
  });

  it('requires campaign_mailing_send_id', async () => {
    const body = await refused('/analytics/subscribers_by_tracking_link?html_id=0', 400, 'request.invalid');
    expect(body.fields.map((f) => f.field)).toEqual(['campaign_mailing_send_id']);
  });
});

describe('GET /analytics/campaign_mailing_send_totals', () => {
  const totals = '/analytics/campaign_mailing_send_totals';

  it('reads one send’s counters', async () => {
    expect(await data(`${totals}?campaign_mailing_send_id=${s.springSend}`)).toEqual({
      delivered: 3,
      viewed: 2,
      clicked: 2,
      bounced: 1,
      soft_bounced: 1,
      hard_bounced: 1,
      unsubscribed: 1,
      global_unsubscribed: 0,
    });
  });

  it('sums the counters of every send of the account without a send id', async () => {
    const expected = {
      delivered: 4,
      viewed: 3,
      clicked: 3,
      bounced: 1,
      soft_bounced: 1,
      hard_bounced: 1,
      unsubscribed: 1,
      global_unsubscribed: 1,
    };
    expect(await data(totals)).toEqual(expected);
    expect(await data(`${totals}?campaign_mailing_send_id=`)).toEqual(expected);
  });

  it('reads counters, not delivery rows: the other account’s one delivery shows as its counters say', async () => {
    const theirs = marketingClient(f.t, f.other, { bare: true });
    expect(await data(totals, theirs)).toMatchObject({ delivered: 50, clicked: 9, viewed: 0 });
  });

  it('answers zeros for an account that never sent', async () => {
    const fresh = marketingClient(f.t, await f.t.createAccount());
    expect(Object.values(await data(totals, fresh))).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('answers 404 for a send that is not the account’s', async () => {
    await refused(`${totals}?campaign_mailing_send_id=${s.foreignSend}`, 404, 'marketing.send_not_found');
    await refused(`${totals}?campaign_mailing_send_id=12abc`, 404, 'marketing.send_not_found');
  });
});
