import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { keyOf, makeList, makeSubscriber, marketingClient } from '../marketing.test-support.ts';
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

const attrs = async (id: string) => (await call('GET', `/subscribers/${id}`)).json().data.attributes;
const onList = async (id: string, listId: string) =>
  ((await attrs(id)).subscription_lists as { id: string; unsubscribed: boolean }[]).find(
    (l) => l.id === listId,
  );

describe('subscriptions', () => {
  it('creates a subscription once, reads it, and deletes it as a list-level opt-out that keeps the record', async () => {
    const created = await call('POST', '/subscriptions', {
      subscription: { subscription_list_id: other, subscriber_id: s.cy },
    });
    expect(created.statusCode, created.body).toBe(200);
    const id = created.json().data.id as string;
    expect(created.json().data.attributes).toMatchObject({
      subscriber_id: s.cy,
      subscription_list_id: other,
      unsubscribed: false,
    });
    const again = await call('POST', '/subscriptions', {
      subscription: { subscription_list_id: other, subscriber_id: s.cy },
    });
    expect(again.json().error_code).toBe('marketing.subscription_exists');
    expect((await call('GET', `/subscriptions/${id}`)).json().data.id).toBe(id);
    const deleted = await call('DELETE', `/subscriptions/${id}`);
    expect(deleted.json().data.attributes).toMatchObject({
      unsubscribed: true,
      unsubscribed_at: expect.any(String),
    });
    expect((await attrs(s.cy)).unsubscribed).toBe(false);
    const all = await call('GET', '/subscriptions?use_pagination=true&items=2');
    expect(all.json()).toMatchObject({ page_info: { items: 2 }, total_count: expect.any(Number) });
    expect((await call('GET', '/subscriptions/1-999999')).statusCode).toBe(404);
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
