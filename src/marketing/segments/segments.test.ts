import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { makeList, makeSubscriber, marketingClient } from '../marketing.test-support.ts';

let t: TestApp;
let a: TestAccount;
let call: ReturnType<typeof marketingClient>;
let vip: string;
const ids: Record<string, string> = {};
beforeAll(async () => {
  t = await createTestApp();
  a = await t.createAccount();
  call = marketingClient(t, a);
  vip = await makeList(call, 'VIP');
  ids.ada = await makeSubscriber(
    call,
    'ada@clinic.example',
    { first_name: 'Ada', custom_fields: [{ name: 'Plan', value: 'Gold' }] },
    vip,
  );
  ids.bob = await makeSubscriber(call, 'bob@mail.example', {
    first_name: 'Bob',
    custom_fields: [{ name: 'plan', value: 'silver' }],
  });
  ids.cy = await makeSubscriber(call, 'cy@clinic.example', {
    first_name: 'Cy',
    phone_number: '+1 (415) 555-0100',
  });
});
afterAll(() => t.close());

const emailsOf = async (query: string) => {
  const res = await call('GET', `/subscribers?order_by=email&order=asc&${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json().data as { attributes: { email: string } }[]).map((s) => s.attributes.email);
};
const f = (filters: unknown) => `filters=${encodeURIComponent(JSON.stringify(filters))}`;

describe('dynamic lists', () => {
  it('creates, reads with its count, changes and deletes a dynamic list', async () => {
    const created = await call('POST', '/dynamic_lists', {
      name: 'Clinic people',
      filters: [[{ field: 'email', op: 'ends_with', terms: ['@clinic.example'] }]],
    });
    expect(created.statusCode, created.body).toBe(200);
    const id = created.json().data.id as string;
    expect(created.json().data).toMatchObject({
      type: 'dynamic_list',
      attributes: { name: 'Clinic people', subscriber_count: 2 },
    });
    const changed = await call('PATCH', `/dynamic_lists/${id}`, {
      filters: [[{ field: 'custom_field:plan', op: 'is', terms: ['GOLD'] }]],
    });
    expect(changed.json().data.attributes.subscriber_count).toBe(1);
    expect(await emailsOf(`dynamic_list_id=${id}`)).toEqual(['ada@clinic.example']);
    const listed = await call('GET', '/dynamic_lists?use_pagination=true&items=10&with_stats=true');
    expect(listed.json()).toMatchObject({
      total_count: 1,
      page_info: { page: 1, items: 10, pages: 1, total_count: 1 },
    });
    expect(listed.json().data[0].attributes.subscriber_count).toBe(1);
    const all = await call('GET', '/lists');
    expect((all.json().data as { type: string }[]).map((l) => l.type)).toEqual([
      'subscription_list',
      'subscription_list',
      'dynamic_list',
    ]);
    expect((await call('DELETE', `/dynamic_lists/${id}`)).json()).toEqual({});
    expect((await call('GET', `/dynamic_lists/${id}`)).statusCode).toBe(404);
  });

  it('evaluates groups as OR of ANDed conditions, over fields, custom fields, lists and dates', async () => {
    expect(
      await emailsOf(
        f([
          [{ field: 'first_name', op: 'is', terms: ['ada'] }],
          [{ field: 'first_name', op: 'starts_with', terms: ['B'] }],
        ]),
      ),
    ).toEqual(['ada@clinic.example', 'bob@mail.example']);
    expect(
      await emailsOf(
        f([
          [
            { field: 'email', op: 'contains', terms: ['clinic'] },
            { field: 'phone_number', op: 'exists' },
          ],
        ]),
      ),
    ).toEqual(['cy@clinic.example']);
    expect(await emailsOf(f([[{ field: 'custom_field:plan', op: 'not_exists' }]]))).toEqual([
      'cy@clinic.example',
    ]);
    expect(await emailsOf(f([[{ field: 'subscription_list', op: 'is', terms: [vip] }]]))).toEqual([
      'ada@clinic.example',
    ]);
    expect(await emailsOf(f([[{ field: 'subscription_list', op: 'is_not', terms: [vip] }]]))).toEqual([
      'bob@mail.example',
      'cy@clinic.example',
    ]);
    expect(
      await emailsOf(
        f([
          [
            { field: 'created_at', op: 'after', terms: ['2000-01-01'] },
            { field: 'opened', op: 'not_exists' },
          ],
        ]),
      ),
    ).toHaveLength(3);
    expect(await emailsOf(f([[{ field: 'clicked', op: 'within_days', terms: [30] }]]))).toEqual([]);
    const paged = await call(
      'GET',
      `/subscribers?use_pagination=true&items=1&${f([[{ field: 'email', op: 'contains', terms: ['clinic'] }]])}`,
    );
    expect(paged.json()).toMatchObject({ total_count: 2, page_info: { pages: 2, items: 1, page: 1 } });
    expect(paged.json().data).toHaveLength(1);
  });

  it('refuses an unknown field or op with 400 naming it, and stores nothing', async () => {
    const field = await call('POST', '/dynamic_lists', {
      name: 'x',
      filters: [[{ field: 'shoe_size', op: 'is', terms: ['9'] }]],
    });
    expect(field.statusCode).toBe(400);
    expect(field.json()).toMatchObject({ error_code: 'marketing.filter_invalid' });
    expect(field.json().message).toContain('unknown field "shoe_size"');
    const op = await call(
      'GET',
      `/subscribers?${f([[{ field: 'email', op: 'sounds_like', terms: ['x'] }]])}`,
    );
    expect(op.statusCode).toBe(400);
    expect(op.json().message).toContain('unknown op "sounds_like"');
    expect(op.json().fields[0].field).toBe('filters[0][0].op');
    expect((await call('GET', '/subscribers?filters=%5Bnot-json')).statusCode).toBe(400);
    expect((await call('GET', '/dynamic_lists')).json().data).toEqual([]);
  });
});

describe('subscriber reads and counts', () => {
  it('keeps phone_number given at creation and returns it on read', async () => {
    const res = await call('GET', `/subscribers/${ids.cy}`);
    expect(res.json().data.attributes.phone_number).toBe('+14155550100');
  });

  it('reads one subscription list and counts its subscribed members', async () => {
    const one = await call('GET', `/subscription_lists/${vip}`);
    expect(one.json().data).toMatchObject({
      id: Number(vip),
      attributes: { name: 'VIP', subscriber_count: 1 },
    });
    expect((await call('GET', `/subscribers/subscribed_count?subscription_list_id=${vip}`)).json().data).toBe(
      1,
    );
    expect((await call('GET', '/subscribers/subscribed_count')).json().data).toBe(3);
    await call('POST', `/subscribers/${ids.ada}/unsubscribe`, {});
    expect((await call('GET', `/subscribers/subscribed_count?subscription_list_id=${vip}`)).json().data).toBe(
      0,
    );
    await call('POST', `/subscribers/${ids.ada}/subscribe`, {});
    const pages = await call('GET', '/subscription_lists?use_pagination=true&items=1&page=2');
    expect(pages.json()).toMatchObject({ total_count: 2, page_info: { page: 2, pages: 2 } });
    expect(pages.json().data[0].id).toBe(Number(vip));
  });

  it('answers 404 not_found for an operation Sealpost does not serve, under both prefixes', async () => {
    for (const url of ['/v1/marketing/no_such_op', `/v1/marketing/${a.account.username}/no_such_op`]) {
      const res = await t.app.inject({
        method: 'GET',
        url,
        headers: { authorization: `Token token=${a.key}` },
      });
      expect(res.statusCode, url).toBe(404);
      expect(res.json().error_code).toBe('not_found');
    }
  });
});
