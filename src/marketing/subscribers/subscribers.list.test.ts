import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/harness.ts';
import { makeList, marketingClient } from '../marketing.test-support.ts';

let t: TestApp;
let call: ReturnType<typeof marketingClient>;
let vipList: string;
beforeAll(async () => {
  t = await createTestApp();
  call = marketingClient(t, await t.createAccount(), { bare: true });
  vipList = await makeList(call, 'VIP');
  const people = [
    ['carol@example.org', 'Carol', 'Zeta'],
    ['alice@example.org', 'Alice', 'Young'],
    ['bob@clinic.test', 'Bob', 'Smith'],
    ['dave@example.org', 'Dave', 'Smith'],
  ];
  const res = await call('POST', '/subscribers_bulk_create', {
    subscribers: people.map(([email, first_name, last_name]) => ({ email, first_name, last_name })),
  });
  expect(res.statusCode).toBe(200);
  // created_at differs per subscriber: touch them one by one in a known order
  for (const [i, email] of [
    'alice@example.org',
    'bob@clinic.test',
    'carol@example.org',
    'dave@example.org',
  ].entries()) {
    await t.ctx.database.db
      .updateTable('subscribers')
      .set({ created_at: 1_000 + i })
      .where('email', '=', email)
      .execute();
  }
  await call('POST', '/subscribers_bulk_create', {
    subscribers: [{ email: 'bob@clinic.test' }, { email: 'carol@example.org' }],
    subscription_list_id: vipList,
  });
});
afterAll(() => t.close());

const emails = async (query: string) => {
  const res = await call('GET', `/subscribers${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json().data as { attributes: { email: string } }[]).map((s) => s.attributes.email);
};

describe('the subscribers list', () => {
  it('lists newest first by default in the short form', async () => {
    const res = await call('GET', '/subscribers');
    expect(Object.keys(res.json().data[0].attributes).sort()).toEqual([
      'created_at',
      'email',
      'first_name',
      'full_name',
      'last_name',
      'unsubscribed',
    ]);
    expect(await emails('')).toEqual([
      'dave@example.org',
      'carol@example.org',
      'bob@clinic.test',
      'alice@example.org',
    ]);
  });

  it('orders by a named column in either direction', async () => {
    expect(await emails('?order_by=email&order=asc')).toEqual([
      'alice@example.org',
      'bob@clinic.test',
      'carol@example.org',
      'dave@example.org',
    ]);
    expect(await emails('?order_by=last_name&order=desc')).toEqual([
      'carol@example.org',
      'alice@example.org',
      'dave@example.org',
      'bob@clinic.test',
    ]);
  });

  it('pages with items and page', async () => {
    expect(await emails('?items=2&page=1&order_by=email&order=asc')).toEqual([
      'alice@example.org',
      'bob@clinic.test',
    ]);
    expect(await emails('?items=2&page=2&order_by=email&order=asc')).toEqual([
      'carol@example.org',
      'dave@example.org',
    ]);
    expect(await emails('?items=2&page=3')).toEqual([]);
  });

  it('searches email, first and last name, every word matching, letter case ignored', async () => {
    expect(await emails('?search=smith&order_by=email&order=asc')).toEqual([
      'bob@clinic.test',
      'dave@example.org',
    ]);
    expect(await emails('?search=CLINIC')).toEqual(['bob@clinic.test']);
    expect(await emails('?search=dave%20smith')).toEqual(['dave@example.org']);
    expect(await emails('?search=%20%20')).toHaveLength(4);
  });

  it('filters by subscription_list_id', async () => {
    expect(await emails(`?subscription_list_id=${vipList}&order_by=email&order=asc`)).toEqual([
      'bob@clinic.test',
      'carol@example.org',
    ]);
    expect((await call('GET', '/subscribers?subscription_list_id=999999')).statusCode).toBe(404);
  });

  it.each([
    ['items=0', 'items'],
    ['items=1001', 'items'],
    ['items=ten', 'items'],
    ['page=0', 'page'],
    ['order_by=id', 'order_by'],
    ['order=up', 'order'],
    ['search=a%25b', 'search'],
    ['search=bob@clinic', 'search'],
  ])('refuses %s with 400 naming the parameter', async (query, field) => {
    const res = await call('GET', `/subscribers?${query}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().error_code).toBe('request.invalid');
    expect(res.json().fields.map((f: { field: string }) => f.field)).toContain(field);
  });

  it('accepts items at both ends of the range', async () => {
    expect(await emails('?items=1')).toHaveLength(1);
    expect(await emails('?items=1000')).toHaveLength(4);
  });
});
