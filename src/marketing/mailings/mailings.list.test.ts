import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { keyOf, marketingClient } from '../marketing.test-support.ts';
import { makeMailing } from './mailings.test-support.ts';

let t: TestApp;
let a: TestAccount;
let call: ReturnType<typeof marketingClient>;
const ids: Record<string, string> = {};
/** Subjects in creation order, with their editor and sent counter. */
const MAILINGS: [string, string, number][] = [
  ['Alpha news', 'html', 5],
  ['beta offer', 'quill', 50],
  ['Gamma News', 'bee', 0],
  ['delta digest', 'html', 7],
  ['Epsilon news flash', 'quill', 1],
];

beforeAll(async () => {
  t = await createTestApp();
  a = await t.createAccount();
  call = marketingClient(t, a);
  const other = await t.createAccount();
  await makeMailing(marketingClient(t, other), 'Other account news');
  let at = Date.UTC(2026, 0, 1);
  for (const [subject, template_type, sent] of MAILINGS) {
    const id = await makeMailing(call, subject, { template_type });
    ids[subject] = id;
    // Distinct creation times and counters, as sends would leave them.
    at += 60_000;
    await t.ctx.database.db
      .updateTable('campaign_mailings')
      .set({ created_at: at, updated_at: at, sent_count: sent })
      .where('id', '=', await keyOf(t, 'campaign_mailings', id))
      .execute();
  }
});
afterAll(() => t.close());

const subjects = async (query: string): Promise<string[]> => {
  const res = await call('GET', `/campaign_mailings${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json().data as { attributes: { subject: string } }[]).map((m) => m.attributes.subject);
};

describe('GET /campaign_mailings', () => {
  it('lists the account’s mailings, newest first, with the spec attributes and no content', async () => {
    const res = await call('GET', '/campaign_mailings');
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.map((m: { attributes: { subject: string } }) => m.attributes.subject)).toEqual(
      MAILINGS.map((m) => m[0]).reverse(),
    );
    expect(data[0]).toEqual({
      id: Number(ids['Epsilon news flash']),
      uuid: expect.any(String),
      type: 'campaign_mailing',
      attributes: {
        subject: 'Epsilon news flash',
        template_type: 'quill',
        created_at: new Date(Date.UTC(2026, 0, 1) + 5 * 60_000).toISOString(),
        updated_at: new Date(Date.UTC(2026, 0, 1) + 5 * 60_000).toISOString(),
        sent_count: 1,
        delivered_count: 0,
        viewed_count: 0,
        clicked_count: 0,
        bounced_count: 0,
        unsubscribed_count: 0,
      },
    });
  });

  it('searches subjects with a case-insensitive regular expression', async () => {
    expect(await subjects('?search=news')).toEqual(['Epsilon news flash', 'Gamma News', 'Alpha news']);
    expect(await subjects(`?search=${encodeURIComponent('^(alpha|beta)\\b')}`)).toEqual([
      'beta offer',
      'Alpha news',
    ]);
    expect(await subjects(`?search=${encodeURIComponent('news$')}&order=asc`)).toEqual([
      'Alpha news',
      'Gamma News',
    ]);
  });

  it('filters by template type', async () => {
    expect(await subjects('?template_type=quill')).toEqual(['Epsilon news flash', 'beta offer']);
    expect(await subjects('?template_type=quill&search=news')).toEqual(['Epsilon news flash']);
  });

  it('orders by subject ignoring letter case, and by a counter', async () => {
    expect(await subjects('?order_by=subject&order=asc')).toEqual([
      'Alpha news',
      'beta offer',
      'delta digest',
      'Epsilon news flash',
      'Gamma News',
    ]);
    expect(await subjects('?order_by=sent_count')).toEqual([
      'beta offer',
      'delta digest',
      'Alpha news',
      'Epsilon news flash',
      'Gamma News',
    ]);
    expect(await subjects('?order_by=created_at&order=asc')).toEqual(MAILINGS.map((m) => m[0]));
  });

  it('pages with items and page, with and without a search', async () => {
    expect(await subjects('?order=asc&items=2&page=1')).toEqual(['Alpha news', 'beta offer']);
    expect(await subjects('?order=asc&items=2&page=3')).toEqual(['Epsilon news flash']);
    expect(await subjects('?order=asc&items=2&page=4')).toEqual([]);
    expect(await subjects('?order=asc&items=1&page=2&search=news')).toEqual(['Gamma News']);
  });

  it('answers 20 a page by default, and everything with pagination=false', async () => {
    for (let i = 0; i < 20; i++) await makeMailing(call, `Bulk ${i}`);
    expect(await subjects('')).toHaveLength(20);
    expect(await subjects('?pagination=false')).toHaveLength(25);
    expect(await subjects('?pagination=false&items=1&search=bulk')).toHaveLength(20);
    await t.ctx.database.db.deleteFrom('campaign_mailings').where('subject', 'like', 'Bulk %').execute();
  });

  it.each([
    ['an invalid regular expression', `search=${encodeURIComponent('(unclosed')}`],
    ['a search longer than 200 characters', `search=${'a'.repeat(201)}`],
    ['an unknown order_by', 'order_by=html_part'],
    ['an unknown order', 'order=sideways'],
    ['items of 0', 'items=0'],
    ['items over 100', 'items=101'],
    ['page 0', 'page=0'],
    ['a page that is not a number', 'page=two'],
  ])('refuses %s with 400', async (_what, query) => {
    const res = await call('GET', `/campaign_mailings?${query}`);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ error_code: 'request.invalid', errors: [{ code: 400 }] });
  });

  it('refuses a regular expression that backtracks for long with 400, and answers the next search', async () => {
    // Some 2^26 backtracking steps, seconds of matching: a refusal within the time limit can only come from it.
    await makeMailing(call, `${'a'.repeat(26)}!`);
    const res = await call('GET', `/campaign_mailings?search=${encodeURIComponent('^(a+)+$')}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      message: expect.stringMatching(/too long/),
      fields: [{ field: 'search', message: 'is too expensive to evaluate' }],
    });
    expect(await subjects('?search=gamma')).toEqual(['Gamma News']);
  });
});
