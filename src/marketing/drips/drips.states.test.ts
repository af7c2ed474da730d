/** Drip campaigns through the API: the list of drips and their states (draft, active, paused). */
import { beforeAll, describe, expect, it } from 'vitest';
import { type TestAccount } from '../../test/harness.ts';
import { marketingClient } from '../marketing.test-support.ts';
import { dripApiTestBed, makeDrip } from './drips.test-support.ts';

const { t, call, d, graphWith } = dripApiTestBed();

describe('drip campaign list', () => {
  let names: string[];
  let fresh: TestAccount;
  let c: ReturnType<typeof marketingClient>;
  beforeAll(async () => {
    fresh = await t.createAccount();
    c = marketingClient(t, fresh);
    names = ['Welcome series', 'Win-back', 'welcome again', 'Birthday'];
    for (const name of names) await makeDrip(c, { name });
  });

  it('lists newest first without the graph fields', async () => {
    const res = await c('GET', '/drip_campaigns');
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.map((d: { attributes: { name: string } }) => d.attributes.name)).toEqual(
      [...names].reverse(),
    );
    expect(data[0].attributes).not.toHaveProperty('drip_campaign_nodes');
  });

  it('filters by a case-insensitive regular expression against the name', async () => {
    const res = await c('GET', `/drip_campaigns?search=${encodeURIComponent('^welcome')}&order=asc`);
    expect(res.json().data.map((d: { attributes: { name: string } }) => d.attributes.name)).toEqual([
      'Welcome series',
      'welcome again',
    ]);
  });

  it('refuses an invalid regular expression with 400', async () => {
    const res = await c('GET', `/drip_campaigns?search=${encodeURIComponent('(unclosed')}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().error_code).toBe('request.invalid');
  });

  it('orders by name and pages with page and items', async () => {
    const page = async (p: number) =>
      (await c('GET', `/drip_campaigns?order_by=name&order=asc&items=3&page=${p}`))
        .json()
        .data.map((d: { attributes: { name: string } }) => d.attributes.name);
    expect([...(await page(1)), ...(await page(2))]).toEqual(
      ['Birthday', 'welcome again', 'Welcome series', 'Win-back'].sort((x, y) => (x < y ? -1 : 1)),
    );
    expect(await page(2)).toHaveLength(1);
    expect((await c('GET', '/drip_campaigns?order_by=color')).statusCode).toBe(400);
  });
});

describe('drip campaign states', () => {
  it('moves draft → active → paused → active, refusing moves that do not apply with 409', async () => {
    const id = await makeDrip(call, {
      name: 'States',
      subscription_list_id: d.list,
      drip_campaign_nodes: d.graph,
    });
    expect((await call('POST', `/drip_campaigns/${id}/pause`)).statusCode).toBe(409);
    const started = await call('POST', `/drip_campaigns/${id}/start`);
    expect(started.statusCode).toBe(200);
    expect(started.json()).toEqual({ data: { jids: [expect.stringMatching(/^\d+$/)] } });
    const again = await call('POST', `/drip_campaigns/${id}/start`);
    expect(again.statusCode).toBe(409);
    expect(again.json().error_code).toBe('marketing.drip_state');
    expect((await call('POST', `/drip_campaigns/${id}/pause`)).json()).toEqual({
      data: { drip_campaign_id: id, status: 'paused' },
    });
    expect((await call('POST', `/drip_campaigns/${id}/pause`)).statusCode).toBe(409);
    expect((await call('GET', `/drip_campaigns/${id}`)).json().data.attributes.state).toBe('paused');
    expect((await call('POST', `/drip_campaigns/${id}/start`)).statusCode).toBe(200);
    expect((await call('GET', `/drip_campaigns/${id}`)).json().data.attributes.state).toBe('active');
  });

  it("refuses a change of an active drip's graph with 409 but renames it; a paused drip's graph changes", async () => {
    const id = await makeDrip(call, {
      name: 'Running',
      subscription_list_id: d.list,
      drip_campaign_nodes: d.graph,
    });
    await call('POST', `/drip_campaigns/${id}/start`);
    const shorter = graphWith('pause', { id: 'pause', type: 'wait', duration: { hours: 1 } });
    const refused = await call('PUT', `/drip_campaigns/${id}`, {
      drip_campaign: { drip_campaign_nodes: shorter },
    });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error_code).toBe('marketing.drip_state');
    const renamed = await call('PUT', `/drip_campaigns/${id}`, {
      drip_campaign: { name: 'Running, renamed' },
    });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json().data.attributes).toMatchObject({
      name: 'Running, renamed',
      state: 'active',
      drip_campaign_nodes: JSON.stringify(JSON.parse(d.graph)),
    });
    await call('POST', `/drip_campaigns/${id}/pause`);
    const changed = await call('PUT', `/drip_campaigns/${id}`, {
      drip_campaign: { drip_campaign_nodes: shorter, start_trigger: 'subscription' },
    });
    expect(changed.statusCode).toBe(200);
    expect(JSON.parse(changed.json().data.attributes.drip_campaign_nodes).nodes[2].duration).toEqual({
      hours: 1,
    });
    expect(changed.json().data.attributes).toHaveProperty('drip_campaign_tree_blob');
  });

  it('refuses an invalid graph on PUT with 422 and keeps the old one', async () => {
    const id = await makeDrip(call, {
      name: 'Keep',
      subscription_list_id: d.list,
      drip_campaign_nodes: d.graph,
    });
    const res = await call('PUT', `/drip_campaigns/${id}`, {
      drip_campaign: { drip_campaign_nodes: graphWith('end', null) },
    });
    expect(res.statusCode).toBe(422);
    expect(
      JSON.parse((await call('GET', `/drip_campaigns/${id}`)).json().data.attributes.drip_campaign_nodes),
    ).toEqual(JSON.parse(d.graph));
  });

  it('deletes a drip that is not active, and refuses to delete an active one', async () => {
    const id = await makeDrip(call, {
      name: 'Short-lived',
      subscription_list_id: d.list,
      drip_campaign_nodes: d.graph,
    });
    await call('POST', `/drip_campaigns/${id}/start`);
    expect((await call('DELETE', `/drip_campaigns/${id}`)).statusCode).toBe(409);
    await call('POST', `/drip_campaigns/${id}/pause`);
    const res = await call('DELETE', `/drip_campaigns/${id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({});
    expect((await call('GET', `/drip_campaigns/${id}`)).statusCode).toBe(404);
  });
});
