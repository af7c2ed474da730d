import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { keyOf, makeList, makeSubscriber, marketingClient, UUID_PATTERN } from '../marketing.test-support.ts';
import { branchingGraph, makeDrip, storeMailing } from '../drips/drips.test-support.ts';
import { enrollNew, LOOKBACK_MS } from '../drips/drips.enroll.ts';

let t: TestApp;
let a: TestAccount;
let call: ReturnType<typeof marketingClient>;
let list: string;
let other: string;
const s = { amy: '', bo: '', cy: '' };
beforeAll(async () => {
  t = await createTestApp();
  a = await t.createAccount();
  call = marketingClient(t, a);
  list = await makeList(call, 'News');
  other = await makeList(call, 'Events');
  s.amy = await makeSubscriber(call, 'amy@sub.example', {}, list);
  s.bo = await makeSubscriber(call, 'bo@sub.example', {}, list);
  s.cy = await makeSubscriber(call, 'cy@sub.example');
});
afterAll(() => t.close());

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const attrs = async (id: string) => (await call('GET', `/subscribers/${id}`)).json().data.attributes;
const onList = async (id: string, listId: string) =>
  ((await attrs(id)).subscription_lists as { id: number; unsubscribed: boolean }[]).find(
    (l) => String(l.id) === listId,
  );

describe('subscriptions', () => {
  it('answers a created subscription as the flat record of the reference, field by field', async () => {
    const created = await call('POST', '/subscriptions', {
      subscription: { subscription_list_id: other, subscriber_id: s.cy },
    });
    expect(created.statusCode, created.body).toBe(200);
    const data = created.json().data as Record<string, unknown>;
    expect(Object.keys(data).sort()).toEqual(
      [
        'confirmed',
        'created_at',
        'delete_at',
        'dynamic_list_id',
        'id',
        'subscriber_id',
        'subscription_list_id',
        'uuid',
        'unsubscribed_at',
        'updated_at',
      ].sort(),
    );
    expect(Number.isInteger(data.id)).toBe(true);
    expect(data.uuid).toMatch(UUID_PATTERN);
    expect(data.subscription_list_id).toBe(Number(other));
    expect(data.dynamic_list_id).toBeNull();
    expect(Number.isInteger(data.subscriber_id)).toBe(true);
    expect(data.subscriber_id).toBe(await keyOf(t, 'subscribers', s.cy));
    expect(data.unsubscribed_at).toBeNull();
    expect(data.delete_at).toBeNull();
    expect(data.created_at).toMatch(ISO);
    expect(data.updated_at).toMatch(ISO);
    const got = await call('GET', `/subscriptions/${String(data.uuid)}`);
    expect(got.json()).toEqual({ data });
  });

  it('answers a duplicate create with 200 and errors, changing nothing', async () => {
    const body = { subscription: { subscription_list_id: other, subscriber_id: s.amy } };
    expect((await call('POST', '/subscriptions', body)).statusCode).toBe(200);
    const before = await call('GET', '/subscriptions');
    const listBefore = (await call('GET', `/subscription_lists/${other}`)).json();
    const again = await call('POST', '/subscriptions', body);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ errors: [expect.stringContaining('already subscribed')] });
    expect((await call('GET', '/subscriptions')).json()).toEqual(before.json());
    expect((await call('GET', `/subscription_lists/${other}`)).json()).toEqual(listBefore);
  });

  it('answers a create naming a missing or unknown list or subscriber with 200 and errors', async () => {
    const missing = await call('POST', '/subscriptions', { subscription: { subscription_list_id: other } });
    expect(missing.statusCode).toBe(200);
    expect(missing.json()).toEqual({ errors: ['subscriber_id is required'] });
    const unknown = await call('POST', '/subscriptions', {
      subscription: { subscription_list_id: '999999', subscriber_id: s.amy },
    });
    expect(unknown.statusCode).toBe(200);
    expect(unknown.json().errors).toHaveLength(1);
    expect(unknown.json().data).toBeUndefined();
    const bare = await t.app.inject({
      method: 'POST',
      url: '/v1/marketing/subscriptions',
      payload: { subscription: { subscription_list_id: other, subscriber_id: s.amy } },
    });
    expect(bare.statusCode).toBe(401);
  });

  it('deletes a subscription as a list-level opt-out that keeps the record', async () => {
    const made = await call('POST', '/subscriptions', {
      subscription: { subscription_list_id: other, subscriber_id: s.bo },
    });
    const id = made.json().data.uuid as string;
    const deleted = await call('DELETE', `/subscriptions/${id}`);
    expect(deleted.json().data).toMatchObject({ uuid: id, unsubscribed_at: expect.stringMatching(ISO) });
    expect((await attrs(s.bo)).unsubscribed).toBe(false);
    expect((await call('GET', `/subscriptions/${id}`)).json().data.unsubscribed_at).toMatch(ISO);
    const page = await call('GET', '/subscriptions?use_pagination=true&items=2');
    expect(page.json()).toMatchObject({ page_info: { items: 2 }, total_count: expect.any(Number) });
    expect(page.json().data).toHaveLength(2);
    expect((await call('GET', '/subscriptions/1-999999')).statusCode).toBe(404);
  });

  it('answers every subscription of the account when not paginated, beyond 1000', async () => {
    const b = await t.createAccount();
    const callB = marketingClient(t, b);
    const big = await makeList(callB, 'Big');
    for (let part = 0; part < 2; part++) {
      const subscribers = Array.from({ length: 600 }, (_, i) => ({ email: `p${part}-${i}@big.example` }));
      const res = await callB('POST', '/subscribers_bulk_create', { subscribers, subscription_list_id: big });
      expect(res.statusCode, res.body).toBe(200);
    }
    const all = await callB('GET', '/subscriptions');
    expect(all.statusCode).toBe(200);
    expect(all.headers['content-type']).toContain('application/json');
    const data = all.json().data as { id: number; subscription_list_id: number }[];
    const onBig = data.filter((x) => x.subscription_list_id === Number(big));
    expect(onBig).toHaveLength(1200);
    expect(new Set(data.map((x) => x.id)).size).toBe(data.length);
  });

  it('unsubscribes from named lists or globally, and subscribing clears the global opt-out', async () => {
    await call('POST', '/subscriptions/unsubscribe', {
      subscriber_ids: [s.amy],
      subscription_list_ids: [list],
    });
    expect((await onList(s.amy, list))!.unsubscribed).toBe(true);
    expect((await attrs(s.amy)).unsubscribed).toBe(false);
    const global = await call('POST', '/subscriptions/unsubscribe', { subscriber_ids: [s.amy, s.bo] });
    expect(
      global.json().data.map((x: { attributes: { unsubscribed: boolean } }) => x.attributes.unsubscribed),
    ).toEqual([true, true]);
    await call('POST', '/subscriptions/subscribe', {
      subscriber_ids: [s.amy],
      subscription_list_ids: [list],
    });
    expect((await onList(s.amy, list))!.unsubscribed).toBe(false);
    expect((await attrs(s.amy)).unsubscribed).toBe(false);
    await call('POST', '/subscriptions/subscribe', { subscriber_ids: [s.bo] });
    expect((await attrs(s.bo)).unsubscribed).toBe(false);
    expect((await call('POST', '/subscriptions/subscribe', { subscriber_ids: ['999999'] })).statusCode).toBe(
      404,
    );
  });

  it('opts a whole list out and in globally, minus except_ids, and a dynamic list likewise', async () => {
    const out = await call('POST', '/subscriptions/bulk_global_unsubscribe', {
      from_subscription_list_id: list,
      except_ids: [s.bo],
    });
    expect(out.json().data.num_subscribers_updated).toBe(1);
    expect([
      (await attrs(s.amy)).unsubscribed,
      (await attrs(s.bo)).unsubscribed,
      (await attrs(s.cy)).unsubscribed,
    ]).toEqual([true, false, false]);
    const dyn = await call('POST', '/dynamic_lists', {
      name: 'cy',
      filters: [[{ field: 'email', op: 'starts_with', terms: ['cy@'] }]],
    });
    await call('POST', '/subscriptions/dynamic_bulk_unsubscribe', {
      from_subscription_list_id: dyn.json().data.id,
    });
    expect((await attrs(s.cy)).unsubscribed).toBe(true);
    await call('POST', '/subscriptions/bulk_global_subscribe', { subscriber_ids: [s.amy, s.cy] });
    expect([(await attrs(s.amy)).unsubscribed, (await attrs(s.cy)).unsubscribed]).toEqual([false, false]);
    expect((await call('POST', '/subscriptions/bulk_global_subscribe', {})).statusCode).toBe(400);
  });

  it('starts a drip triggered by subscription_created for a subscription made here', async () => {
    const m = await storeMailing(t, a.account.customer_id, `Welcome ${Date.now()}`);
    const drips = await makeList(call, 'Drip list');
    const graph = JSON.parse(branchingGraph(m, m, m)) as { nodes: { trigger?: string }[] };
    graph.nodes[0]!.trigger = 'subscription_created';
    const drip = await makeDrip(call, {
      name: 'On subscribe',
      subscription_list_id: drips,
      start_trigger: 'subscription_created',
      drip_campaign_nodes: JSON.stringify(graph),
    });
    expect((await call('POST', `/drip_campaigns/${drip}/start`)).statusCode).toBe(200);
    await call('POST', '/subscriptions', {
      subscription: { subscription_list_id: drips, subscriber_id: s.bo },
    });
    await enrollNew(t.ctx, Date.now() + LOOKBACK_MS);
    const rows = await t.ctx.database.db
      .selectFrom('drip_enrollments')
      .select('subscriber_id')
      .where('drip_campaign_id', '=', await keyOf(t, 'drip_campaigns', drip))
      .execute();
    expect(rows.map((r) => Number(r.subscriber_id))).toEqual([await keyOf(t, 'subscribers', s.bo)]);
  });
});
