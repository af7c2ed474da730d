import { describe, expect, it } from 'vitest';
import { marketingClient } from '../marketing.test-support.ts';
import { scenarioTestBed, readers, URL_A, URL_B } from './analytics-scenario.test-support.ts';

const { f, s } = scenarioTestBed();
const { data: read, ids, refused } = readers(() => f.call);
const ok = async (path: string) =>
  (await read(path)) as { id: string; attributes: Record<string, unknown> }[];

describe('GET /tracking_links', () => {
  const link = (delivery: string, htmlId: number) => `${delivery}-${htmlId}`;

  it('lists every link of every email of a send, clicked or not, newest email first', async () => {
    const res = await f.call('GET', `/tracking_links?campaign_mailing_send_id=${s.springSend}`);
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data as { id: string; attributes: Record<string, unknown> }[];
    const { alice, carol, dave } = s.deliveries;
    expect(data).toHaveLength(12);
    expect(res.json()).toMatchObject({
      total_count: 12,
      page_info: { page: 1, items: 50, pages: 1, total_count: 12 },
    });
    expect(data.slice(0, 3).map((r) => r.id)).toEqual([link(dave, 2), link(dave, 1), link(dave, 0)]);
    expect(data.find((r) => r.id === link(alice, 0))).toEqual({
      id: link(alice, 0),
      type: 'tracking_link',
      attributes: {
        target_url: URL_A,
        opened_at: new Date(12_000).toISOString(),
        clicked: 3,
        campaign_mailing_delivery_id: alice,
        html_id: 0,
      },
    });
    expect(data.find((r) => r.id === link(carol, 1))!.attributes).toMatchObject({
      target_url: URL_B,
      clicked: 0,
      opened_at: null,
    });
  });

  it('lists every link of one email of a send, and the clicked links of a drip step', async () => {
    const { alice, carol, drip } = s.deliveries;
    expect(await ids(`/tracking_links?campaign_mailing_delivery_id=${alice}&order=asc`)).toEqual([
      link(alice, 0),
      link(alice, 1),
      link(alice, 2),
    ]);
    const carols = await ok(`/tracking_links?campaign_mailing_delivery_id=${carol}`);
    expect(carols.map((r) => r.attributes.clicked)).toEqual([0, 0, 0]);
    const [step] = await ok(`/tracking_links?campaign_mailing_delivery_id=${drip}`);
    expect(step!).toMatchObject({
      id: link(drip, 0),
      attributes: {
        opened_at: new Date(40_500).toISOString(),
        clicked: 1,
        campaign_mailing_delivery_id: drip,
      },
    });
  });

  it('takes a send and one of its emails together, and refuses an email of another send', async () => {
    const { bob } = s.deliveries;
    expect(
      await ids(
        `/tracking_links?campaign_mailing_send_id=${s.springSend}&campaign_mailing_delivery_id=${bob}`,
      ),
    ).toEqual([link(bob, 2), link(bob, 1), link(bob, 0)]);
    await refused(
      `/tracking_links?campaign_mailing_send_id=${s.fluSend}&campaign_mailing_delivery_id=${bob}`,
      404,
      'marketing.delivery_not_found',
    );
  });

  it('sorts by clicks, position, first open and target, ties by email then position in the same direction', async () => {
    const { alice, bob } = s.deliveries;
    const first = async (query: string, n: number) =>
      (await ids(`/tracking_links?campaign_mailing_send_id=${s.springSend}&${query}`)).slice(0, n);
    expect(await first('order_by=clicked', 3)).toEqual([link(alice, 0), link(bob, 0), link(alice, 1)]);
    expect(await first('order_by=html_id&order=asc&items=4', 4)).toEqual(
      [alice, bob, s.deliveries.carol, s.deliveries.dave].map((d) => link(d, 0)),
    );
    expect(await first('order_by=opened_at&order=desc', 3)).toEqual([
      link(bob, 2),
      link(bob, 1),
      link(bob, 0),
    ]);
    expect(
      (
        await ok(`/tracking_links?campaign_mailing_send_id=${s.springSend}&order_by=target_url&order=desc`)
      )[0]!.attributes.target_url,
    ).toBe(URL_B);
  });

  it('pages with items and page, and tells the total', async () => {
    const base = `/tracking_links?campaign_mailing_send_id=${s.springSend}&order=asc&items=5`;
    const { alice } = s.deliveries;
    const page1 = await f.call('GET', `${base}&page=1`);
    expect(
      page1
        .json()
        .data.map((r: { id: string }) => r.id)
        .slice(0, 3),
    ).toEqual([link(alice, 0), link(alice, 1), link(alice, 2)]);
    expect(page1.json().page_info).toEqual({ count: 12, page: 1, items: 5, pages: 3, total_count: 12 });
    expect(await ids(`${base}&page=3`)).toHaveLength(2);
    expect(await ids(`${base}&page=4`)).toEqual([]);
  });

  it('answers the same under the bare prefix', async () => {
    const bare = marketingClient(f.t, f.a, { bare: true, bearer: true });
    const res = await bare('GET', `/tracking_links?campaign_mailing_send_id=${s.fluSend}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.map((r: { id: string }) => r.id)).toContain(link(s.deliveries.carolFlu, 0));
  });

  it('requires a send or a delivery', async () => {
    for (const query of ['', '?campaign_mailing_send_id=&campaign_mailing_delivery_id=', '?order=asc']) {
      const body = await refused(`/tracking_links${query}`, 400, 'request.invalid');
      expect(body.fields[0]?.field).toBe('campaign_mailing_send_id');
    }
  });

  it.each([
    ['campaign_mailing_send_id', () => '999999', 'marketing.send_not_found'],
    ['campaign_mailing_send_id', () => 'not-a-send', 'marketing.send_not_found'],
    ['campaign_mailing_send_id', () => s.foreignSend, 'marketing.send_not_found'],
    ['campaign_mailing_delivery_id', () => '999999', 'marketing.delivery_not_found'],
    ['campaign_mailing_delivery_id', () => s.deliveries.foreign, 'marketing.delivery_not_found'],
  ])('answers 404 for a %s that is not the account’s', async (param, id, code) => {
    await refused(`/tracking_links?${param}=${id()}`, 404, code);
  });

  it.each([
    ['order_by=id', 'order_by'],
    ['order_by=', 'order_by'],
    ['order=up', 'order'],
    ['items=0', 'items'],
    ['items=1001', 'items'],
    ['page=0', 'page'],
    ['page=two', 'page'],
  ])('refuses %s with 400 naming the parameter', async (query, field) => {
    const body = await refused(
      `/tracking_links?campaign_mailing_send_id=${s.springSend}&${query}`,
      400,
      'request.invalid',
    );
    expect(body.fields.map((f: { field: string }) => f.field)).toContain(field);
  });
});

describe('GET /analytics/campaign_mailing_deliveries_table', () => {
  const table = `/analytics/campaign_mailing_deliveries_table`;

  it('has one row per email of a send with its outcome and clicks per URL', async () => {
    const data = await ok(`${table}?campaign_mailing_send_id=${s.springSend}`);
    expect(data.map((r) => r.id)).toEqual([
      s.deliveries.dave,
      s.deliveries.carol,
      s.deliveries.bob,
      s.deliveries.alice,
    ]);
    const flags = ['delivered', 'viewed', 'clicked', 'bounced', 'unsubscribed'];
    const pick = (r: Record<string, unknown>) => flags.filter((f) => r[f] === true);
    expect(data.map((r) => pick(r as unknown as Record<string, unknown>))).toEqual([
      ['bounced'],
      ['delivered'],
      ['delivered', 'viewed', 'clicked', 'unsubscribed'],
      ['delivered', 'viewed', 'clicked'],
    ]);
    expect(data[3]).toMatchObject({
      recipient: 'alice@example.org',
      created_at: new Date(11_001).toISOString(),
      tracking_links: { [URL_A]: '3', [URL_B]: '1' },
    });
    expect(data[1]).toMatchObject({ tracking_links: {} });
  });

  it('takes a mailing for the emails of all its sends and drip steps, sorted by recipient', async () => {
    expect(await ids(`${table}?campaign_mailing_id=${s.fluMailing}`)).toEqual([
      s.deliveries.drip,
      s.deliveries.carolFlu,
    ]);
    const rows = await ok(
      `${table}?campaign_mailing_id=${s.springMailing}&order_by=recipient&order=asc&items=2&page=2`,
    );
    expect(rows.map((r) => (r as unknown as { recipient: string }).recipient)).toEqual([
      'carol@example.org',
      'dave@example.org',
    ]);
    expect(
      await ids(`${table}?campaign_mailing_id=${s.fluMailing}&campaign_mailing_send_id=${s.fluSend}`),
    ).toEqual([s.deliveries.carolFlu]);
  });

  it('refuses a missing selector with 400 and an unknown or mismatched one with 404', async () => {
    await refused(table, 400, 'request.invalid');
    await refused(`${table}?campaign_mailing_id=999999`, 404, 'marketing.mailing_not_found');
    await refused(`${table}?campaign_mailing_send_id=${s.foreignSend}`, 404, 'marketing.send_not_found');
    await refused(
      `${table}?campaign_mailing_id=${s.springMailing}&campaign_mailing_send_id=${s.fluSend}`,
      404,
      'marketing.send_not_found',
    );
    await refused(`${table}?campaign_mailing_send_id=${s.springSend}&order_by=email`, 400, 'request.invalid');
  });
});
