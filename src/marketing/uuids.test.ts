/** Marketing ids are UUIDs in every answer, foreign ids included; the older integer form is still read; bad ids are 404. */
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
  subscriber = await makeSubscriber(call, 'ada@uuid.example', { first_name: 'Ada' }, list);
  mailing = await makeMailing(call, 'Checkup', { from_email: `news@${a.domain}` });
});
afterAll(() => t.close());

const ok = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
  const res = await call(method, path, body);
  expect(res.statusCode, `${method} ${path}: ${res.body}`).toBe(200);
  return res;
};

describe('marketing ids', () => {
  it('are UUIDs for lists, dynamic lists, subscribers, mailings, sends, deliveries, drips and subscriptions', async () => {
    for (const id of [list, subscriber, mailing]) expect(id).toMatch(UUID_PATTERN);
    const dynamic = await ok('POST', '/dynamic_lists', {
      name: 'Ada',
      filters: [[{ field: 'subscription_list', op: 'is', terms: [list] }]],
    });
    expect(dynamic.json().data.id).toMatch(UUID_PATTERN);
    expect(dynamic.json().data.attributes.subscriber_count).toBe(1);

    const person = (await ok('GET', `/subscribers/${subscriber}`)).json().data;
    expect(person.id).toBe(subscriber);
    expect(person.attributes.subscription_lists.map((l: { id: string }) => l.id)).toContain(list);

    const started = await ok('POST', '/campaign_mailing_sends', {
      campaign_mailing_id: mailing,
      campaign_mailing_send: { subscription_list_id: list, from_email: `news@${a.domain}` },
    });
    const send = String(started.headers['sealpost-campaign-mailing-send-id']);
    expect(send).toMatch(UUID_PATTERN);
    await expandSlice(t.ctx, await keyOf(t, 'campaign_mailing_sends', send));
    expect((await ok('GET', `/campaign_mailing_sends/${send}`)).json().data).toMatchObject({
      id: send,
      attributes: { campaign_mailing_id: mailing, subscription_list_id: list },
    });
    const [delivery] = (
      await ok('GET', `/campaign_mailing_deliveries?campaign_mailing_send_id=${send}`)
    ).json().data;
    expect(delivery.id).toMatch(UUID_PATTERN);
    expect(delivery.attributes).toMatchObject({
      campaign_mailing_send_id: send,
      campaign_mailing_id: mailing,
      subscriber_id: subscriber,
    });

    const drip = await makeDrip(call, {
      name: 'Welcome',
      subscription_list_id: list,
      drip_campaign_nodes: branchingGraph(mailing, mailing, mailing),
    });
    expect(drip).toMatch(UUID_PATTERN);
    expect((await ok('GET', `/drip_campaigns/${drip}`)).json().data.attributes.subscription_list_id).toBe(
      list,
    );

    const other = await makeList(call, 'Events');
    const sub = await ok('POST', '/subscriptions', {
      subscription: { subscription_list_id: other, subscriber_id: subscriber },
    });
    expect(sub.json().data.uuid).toMatch(UUID_PATTERN);
    expect(sub.json().data).toMatchObject({
      subscriber_id: await keyOf(t, 'subscribers', subscriber),
      subscription_list_id: other,
    });
    expect((await ok('GET', `/subscriptions/${sub.json().data.uuid}`)).json().data.uuid).toBe(
      sub.json().data.uuid,
    );
  });

  it('still reads the older integer form of an id, answering with the UUID', async () => {
    const key = await keyOf(t, 'subscription_lists', list);
    expect((await ok('GET', `/subscription_lists/${key}`)).json().data.id).toBe(list);
    const created = await ok('POST', '/subscribers', {
      subscriber: { email: 'bo@uuid.example' },
      subscription_list_id: key,
    });
    const person = (await ok('GET', `/subscribers/${created.json().data.id}`)).json().data;
    expect(person.attributes.subscription_lists.map((l: { id: string }) => l.id)).toContain(list);
  });

  it('keeps a drip whose email node names its mailing by the older integer id', async () => {
    const drip = await makeDrip(call, {
      name: 'Older graph',
      subscription_list_id: list,
      drip_campaign_nodes: branchingGraph(
        String(await keyOf(t, 'campaign_mailings', mailing)),
        mailing,
        mailing,
      ),
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
    const theirs = await makeList(marketingClient(t, await t.createAccount()), 'Theirs');
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', '0', '1e3', theirs]) {
      const res = await call('GET', `${path}${encodeURIComponent(id)}`);
      expect(res.statusCode, `${path}${id}: ${res.body}`).toBe(404);
      expect(res.json().error_code).toBe(code);
    }
  });

  it('are described as UUIDs in the served OpenAPI document', async () => {
    const doc = (await t.app.inject('/openapi.json')).json();
    const listed =
      doc.paths['/v1/marketing/{username}/subscription_lists'].get.responses['200'].content[
        'application/json'
      ];
    expect(JSON.stringify(listed.schema)).toContain('"format":"uuid"');
    const send =
      doc.paths['/v1/marketing/{username}/campaign_mailing_sends/{id}'].get.responses['200'].content[
        'application/json'
      ];
    const attributes = send.schema.properties.data.properties.attributes.properties;
    expect(send.schema.properties.data.properties.id.format).toBe('uuid');
    expect(attributes.campaign_mailing_id.format).toBe('uuid');
  });
});
