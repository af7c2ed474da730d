/**
 * Marketing ids: lists, mailings and sends answer with an integer `id` and their UUID in `uuid`; subscribers, dynamic
 * lists, deliveries, drips and subscriptions with UUIDs. Every id is read in either form; bad ids are 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { keyOf, makeList, makeSubscriber, marketingClient, UUID_PATTERN } from './marketing.test-support.ts';
import { makeMailing } from './mailings/mailings.test-support.ts';
import { branchingGraph, makeDrip } from './drips/drips.test-support.ts';
import { expandSlice } from './campaigns/expand.ts';

let t: TestApp;
let a: TestAccount;
let call: ReturnType<typeof marketingClient>;
let list: string;
let subscriber: string;
let mailing: string;
beforeAll(async () => {
  t = await createTestApp();
  a = await t.createAccount();
  call = marketingClient(t, a);
  list = await makeList(call, 'Patients');
  subscriber = await makeSubscriber(call, 'ada@ids.example', { first_name: 'Ada' }, list);
  mailing = await makeMailing(call, 'Checkup', { from_email: `news@${a.domain}` });
});
afterAll(() => t.close());

const INTEGER = /^[1-9][0-9]*$/;

const ok = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
  const res = await call(method, path, body);
  expect(res.statusCode, `${method} ${path}: ${res.body}`).toBe(200);
  return res;
};

const uuidOfList = async () => (await ok('GET', `/subscription_lists/${list}`)).json().data.uuid as string;

describe('marketing ids', () => {
  it('are integers with a uuid for lists, mailings and sends, and their foreign ids are the integers', async () => {
    for (const id of [list, mailing]) expect(id).toMatch(INTEGER);
    const shown = (await ok('GET', `/subscription_lists/${list}`)).json().data;
    expect(shown).toMatchObject({ id: Number(list), uuid: expect.stringMatching(UUID_PATTERN) });
    const person = (await ok('GET', `/subscribers/${subscriber}`)).json().data;
    expect(person.attributes.subscription_lists).toContainEqual(
      expect.objectContaining({ id: Number(list), uuid: shown.uuid }),
    );

    const started = await ok('POST', '/campaign_mailing_sends', {
      campaign_mailing_id: Number(mailing),
      campaign_mailing_send: { subscription_list_id: Number(list), from_email: `news@${a.domain}` },
    });
    const send = String(started.headers['sealpost-campaign-mailing-send-id']);
    expect(send).toMatch(INTEGER);
    const sendUuid = String(started.headers['sealpost-campaign-mailing-send-uuid']);
    await expandSlice(t.ctx, await keyOf(t, 'campaign_mailing_sends', send));
    expect((await ok('GET', `/campaign_mailing_sends/${sendUuid}`)).json().data).toMatchObject({
      id: Number(send),
      uuid: sendUuid,
      attributes: { campaign_mailing_id: Number(mailing), subscription_list_id: Number(list) },
    });
    const [delivery] = (
      await ok('GET', `/campaign_mailing_deliveries?campaign_mailing_send_id=${send}`)
    ).json().data;
    expect(delivery.id).toMatch(UUID_PATTERN);
    expect(delivery.attributes).toMatchObject({
      campaign_mailing_send_id: Number(send),
      campaign_mailing_id: Number(mailing),
      subscriber_id: subscriber,
    });
  });

  it('stay UUIDs for subscribers, dynamic lists, drips and subscriptions', async () => {
    expect(subscriber).toMatch(UUID_PATTERN);
    const dynamic = await ok('POST', '/dynamic_lists', {
      name: 'Ada',
      filters: [[{ field: 'subscription_list', op: 'is', terms: [list] }]],
    });
    expect(dynamic.json().data.id).toMatch(UUID_PATTERN);
    expect(dynamic.json().data.attributes.subscriber_count).toBe(1);

    const drip = await makeDrip(call, {
      name: 'Welcome',
      subscription_list_id: await uuidOfList(),
      drip_campaign_nodes: branchingGraph(mailing, mailing, mailing),
    });
    expect(drip).toMatch(UUID_PATTERN);
    const shown = (await ok('GET', `/drip_campaigns/${drip}`)).json().data.attributes;
    expect(shown.subscription_list_id).toBe(Number(list));

    const other = await makeList(call, 'Events');
    const sub = await ok('POST', '/subscriptions', {
      subscription: { subscription_list_id: other, subscriber_id: subscriber },
    });
    expect(sub.json().data.uuid).toMatch(UUID_PATTERN);
    expect(sub.json().data).toMatchObject({
      subscriber_id: await keyOf(t, 'subscribers', subscriber),
      subscription_list_id: Number(other),
    });
  });

  it('are read in either form, a number-looking string as the integer', async () => {
    const uuid = await uuidOfList();
    for (const id of [list, uuid, uuid.toUpperCase()])
      expect((await ok('GET', `/subscription_lists/${id}`)).json().data.id).toBe(Number(list));
    for (const [i, subscription_list_id] of [Number(list), list, uuid].entries()) {
      const created = await ok('POST', '/subscribers', {
        subscriber: { email: `form-${i}@ids.example` },
        subscription_list_id,
      });
      const person = (await ok('GET', `/subscribers/${created.json().data.id}`)).json().data;
      expect(person.attributes.subscription_lists.map((l: { id: number }) => l.id)).toContain(Number(list));
    }
  });

  it('take `default` for the default list wherever a list is named', async () => {
    const fresh = marketingClient(t, await t.createAccount());
    const count = await fresh('GET', '/subscribers/subscribed_count?subscription_list_id=default');
    expect(count.json(), count.body).toEqual({ data: 0 });
    const shown = await fresh('GET', '/subscription_lists/default');
    const defaultId = shown.json().data.id;
    expect(defaultId).toEqual(expect.any(Number));
    expect(shown.json().data).toMatchObject({ id: defaultId, attributes: { is_default: true } });
    const created = await fresh('POST', '/subscribers', {
      subscriber: { email: 'dee@ids.example' },
      subscription_list_id: 'default',
    });
    expect(created.statusCode, created.body).toBe(200);
    const after = await fresh('GET', '/subscribers/subscribed_count?subscription_list_id=DEFAULT');
    expect(after.json()).toEqual({ data: 1 });
    const byNumber = await fresh('GET', `/subscribers/subscribed_count?subscription_list_id=${defaultId}`);
    expect(byNumber.json()).toEqual({ data: 1 });
  });

  it('keeps a drip whose email node names its mailing by its UUID', async () => {
    const uuid = (await ok('GET', `/campaign_mailings/${mailing}`)).json().data.uuid as string;
    const drip = await makeDrip(call, {
      name: 'UUID graph',
      subscription_list_id: list,
      drip_campaign_nodes: branchingGraph(uuid, mailing, mailing),
    });
    expect((await call('POST', `/drip_campaigns/${drip}/start`)).statusCode).toBe(200);
  });

  it.each([
    ['/subscription_lists/', 'marketing.list_not_found'],
    ['/subscribers/', 'marketing.subscriber_not_found'],
    ['/campaign_mailings/', 'marketing.mailing_not_found'],
    ['/campaign_mailing_sends/', 'marketing.send_not_found'],
    ['/dynamic_lists/', 'marketing.dynamic_list_not_found'],
    ['/drip_campaigns/', 'marketing.drip_not_found'],
    ['/subscriptions/', 'marketing.subscription_not_found'],
  ])('answers 404 for an unknown, malformed or other account id under %s', async (path, code) => {
    const other = marketingClient(t, await t.createAccount());
    const theirs = await makeList(other, 'Theirs');
    const theirUuid = (await other('GET', `/subscription_lists/${theirs}`)).json().data.uuid as string;
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', '0', '1e3', theirs, theirUuid]) {
      const res = await call('GET', `${path}${encodeURIComponent(id)}`);
      expect(res.statusCode, `${path}${id}: ${res.body}`).toBe(404);
      expect(res.json().error_code).toBe(code);
    }
  });

  it('are described as integers beside a uuid in the served OpenAPI document', async () => {
    const doc = (await t.app.inject('/openapi.json')).json();
    const listed =
      doc.paths['/v1/marketing/{username}/subscription_lists'].get.responses['200'].content[
        'application/json'
      ];
    const item = listed.schema.properties.data.items.properties;
    expect(item.id.type).toBe('integer');
    expect(item.uuid.format).toBe('uuid');
    const send =
      doc.paths['/v1/marketing/{username}/campaign_mailing_sends/{id}'].get.responses['200'].content[
        'application/json'
      ];
    const attributes = send.schema.properties.data.properties.attributes.properties;
    expect(send.schema.properties.data.properties.id.type).toBe('integer');
    expect(attributes.campaign_mailing_id.type).toBe('integer');
  });
});
