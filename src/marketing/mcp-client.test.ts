/**
 * The calls Paubox's MCP server makes with the integer ids it validates (lib/paubox-marketing.ts): Bearer key, the
 * username-less prefix, list, mailing and send ids as integer text in queries and bodies; it reads `data` and `id`.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { marketingClient } from './marketing.test-support.ts';
import { scenarioTestBed } from './analytics/analytics-scenario.test-support.ts';

const { f, s } = scenarioTestBed();
let mcp: ReturnType<typeof marketingClient>;
beforeAll(() => {
  mcp = marketingClient(f.t, f.a, { bare: true, bearer: true });
});

/** What `validateIntegerId` lets through: an integer id the answer showed, as text. */
function integerId(raw: unknown): string {
  expect(Number.isInteger(raw) && (raw as number) > 0, `not a positive integer id: ${String(raw)}`).toBe(
    true,
  );
  return String(raw);
}

const get = async (path: string, query: Record<string, string | number>) => {
  const text = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
  const res = await mcp('GET', `${path}?${text}`);
  expect(res.statusCode, `${path}: ${res.body}`).toBe(200);
  return res.json();
};

describe('the Paubox MCP marketing client', () => {
  it('creates a subscription list, a subscriber into it by integer id, and reads its subscribed count', async () => {
    const created = await mcp('POST', '/subscription_lists', { name: 'From the assistant' });
    expect(created.statusCode, created.body).toBe(200);
    const listId = integerId(created.json().data.id);

    const subscriber = await mcp('POST', '/subscribers', {
      subscriber: { email: 'assistant@patients.example', first_name: 'Ann' },
      subscription_list_id: listId,
    });
    expect(subscriber.statusCode, subscriber.body).toBe(200);

    const count = await get('/subscribers/subscribed_count', { subscription_list_id: listId });
    expect(count.data).toBe(1);
    const listed = await get('/subscribers', { subscription_list_id: listId });
    expect(listed.data.map((r: { attributes: { email: string } }) => r.attributes.email)).toEqual([
      'assistant@patients.example',
    ]);
  });

  it('lists campaign deliveries by integer mailing and send ids read from the sends table', async () => {
    const [row] = (await get('/analytics/campaign_mailing_sends_table', {})).data;
    const sendId = integerId(row.id);
    const mailingId = integerId(row.campaign_mailing_id);
    const body = await get('/campaign_mailing_deliveries', {
      campaign_mailing_id: mailingId,
      campaign_mailing_send_id: sendId,
    });
    expect(body.data.length).toBeGreaterThan(0);
    for (const d of body.data)
      expect(d.attributes).toMatchObject({
        campaign_mailing_send_id: Number(sendId),
        campaign_mailing_id: Number(mailingId),
      });
  });

  it('reads the four per-send analytics reports by integer id, as it reads them by UUID', async () => {
    const reports: [string, Record<string, string | number>, Record<string, string | number>][] = [
      [
        'campaign_mailing_send_totals',
        { campaign_mailing_send_id: s.springSend },
        { campaign_mailing_send_id: s.uuids.springSend },
      ],
      [
        'campaign_mailing_deliveries_table',
        { campaign_mailing_id: s.springMailing, campaign_mailing_send_id: s.springSend },
        { campaign_mailing_id: s.uuids.springMailing, campaign_mailing_send_id: s.uuids.springSend },
      ],
      [
        'tracking_links_by_unique_link',
        { campaign_mailing_send_id: s.springSend },
        { campaign_mailing_send_id: s.uuids.springSend },
      ],
      [
        'subscribers_by_tracking_link',
        { campaign_mailing_send_id: s.springSend, html_id: 0 },
        { campaign_mailing_send_id: s.uuids.springSend, html_id: 0 },
      ],
    ];
    for (const [report, byInteger, byUuid] of reports) {
      const answer = await get(`/analytics/${report}`, byInteger);
      expect(answer.data, report).toBeTruthy();
      if (Array.isArray(answer.data)) expect(answer.data.length, report).toBeGreaterThan(0);
      expect(answer, report).toEqual(await get(`/analytics/${report}`, byUuid));
    }
  });

  it("answers 404 for another account's send, named by its integer id", async () => {
    const res = await mcp(
      'GET',
      `/analytics/campaign_mailing_send_totals?campaign_mailing_send_id=${s.foreignSend}`,
    );
    expect(res.statusCode, res.body).toBe(404);
    const deliveries = await mcp(
      'GET',
      `/campaign_mailing_deliveries?campaign_mailing_send_id=${s.foreignSend}`,
    );
    expect(deliveries.statusCode).toBe(404);
  });
});
