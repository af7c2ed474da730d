import { describe, expect, it } from 'vitest';
import { scenarioTestBed } from './analytics-scenario.test-support.ts';

const { f, s } = scenarioTestBed();

const get = async (path: string) => {
  const res = await f.call('GET', path);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as {
    data: { id: string | number; attributes: Record<string, unknown> }[];
    page_info: Record<string, number>;
    total_count: number;
  };
};

describe('GET /campaign_mailing_sends', () => {
  it("lists the account's sends in every state, newest first, with the total", async () => {
    const body = await get('/campaign_mailing_sends');
    const ids = body.data.map((r) => r.id);
    expect(ids).toEqual(expect.arrayContaining([s.springSend, s.fluSend, s.scheduledSend]));
    expect(body.total_count).toBe(ids.length);
    expect(body.data.find((r) => r.id === s.scheduledSend)!.attributes.state).toBe('scheduled');
  });

  it('searches with Field:Value and pages', async () => {
    expect((await get('/campaign_mailing_sends?search=subject:flu')).data.map((r) => r.id)).toEqual([
      s.fluSend,
    ]);
    const page = await get('/campaign_mailing_sends?items=1&page=2&order=asc');
    expect(page.data).toHaveLength(1);
    expect(page.page_info).toMatchObject({ page: 2, items: 1 });
    const bad = await f.call('GET', '/campaign_mailing_sends?search=colour:red');
    expect(bad.statusCode).toBe(400);
  });
});

describe('GET /campaign_mailing_sends?search=<plain term>', () => {
  const ids = async (q: string) => (await get(`/campaign_mailing_sends?search=${q}`)).data.map((r) => r.id);

  it('matches a plain term against the subject, letter case ignored', async () => {
    expect(await ids('FLU')).toEqual([s.fluSend]);
  });

  it('matches a plain term against the list name', async () => {
    expect(await ids('patients')).toEqual([s.fluSend]);
    expect((await ids('newsletter')).sort()).toEqual([s.springSend, s.scheduledSend].sort());
  });

  it('finds nothing for a term nothing contains, and still refuses an unknown field', async () => {
    expect(await ids('MCP')).toEqual([]);
    const bad = await f.call('GET', '/campaign_mailing_sends?search=colour:red');
    expect(bad.statusCode).toBe(400);
  });

  it('matches a plain term on the sends table too', async () => {
    const res = await f.call('GET', '/analytics/campaign_mailing_sends_table?search=flu');
    expect(res.json().data.map((r: { id: string }) => r.id)).toEqual([s.fluSend]);
  });
});

describe('GET /campaign_mailing_deliveries', () => {
  it('lists the deliveries of a send with their outcome, and of the account', async () => {
    const body = await get(
      `/campaign_mailing_deliveries?campaign_mailing_send_id=${s.springSend}&order_by=email&order=asc`,
    );
    expect(body.data.map((r) => r.attributes.email)).toEqual([
      'alice@example.org',
      'bob@example.org',
      'carol@example.org',
      'dave@example.org',
    ]);
    expect(body.data[0]!.attributes).toMatchObject({
      campaign_mailing_send_id: s.springSend,
      opened_at: new Date(12_000).toISOString(),
    });
    expect(body.data[3]!.attributes.status).toBe('failed');
    expect(body.total_count).toBe(4);
    expect((await get('/campaign_mailing_deliveries')).total_count).toBeGreaterThan(4);
    expect(
      (await f.call('GET', '/campaign_mailing_deliveries?campaign_mailing_send_id=999999')).statusCode,
    ).toBe(404);
  });
});
