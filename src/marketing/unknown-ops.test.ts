/** Operations Sealpost does not serve under `/v1/marketing` are 404 `not_found`, never 403; operation names are reserved. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { createAccount } from '../accounts/accounts.service.ts';
import { MARKETING_OPS } from '../accounts/reserved.ts';
import { AppError } from '../errors/app-error.ts';

/** Every operation name of the reference's marketing interface. */
const REFERENCE_OPS = [
  'analytics',
  'campaign_mailing_schedules',
  'campaign_mailing_sends',
  'campaign_mailings',
  'campaign_mailings_bulk_delete',
  'drip_campaigns',
  'subscribers',
  'subscribers_bulk_create',
  'subscribers_bulk_delete',
  'subscription_lists',
  'subscriptions',
  'tracking_links',
];

const routes: string[] = [];
let t: TestApp;
let a: TestAccount;
let b: TestAccount;
beforeAll(async () => {
  t = await createTestApp({ onRoute: (r) => void routes.push(r.url) });
  a = await t.createAccount();
  b = await t.createAccount();
});
afterAll(() => t.close());

const get = (url: string, method: 'GET' | 'POST' | 'DELETE' = 'GET', key = a.key) =>
  t.app.inject({ method, url, headers: { authorization: `Token token=${key}` } });

describe('unknown marketing operations', () => {
  it.each(['GET', 'POST', 'DELETE'] as const)('answer 404 not_found to %s at any depth', async (method) => {
    const urls = [
      '/v1/marketing/no_such_op',
      '/v1/marketing/no_such_op/more',
      '/v1/marketing/no_such_op/more/deeper',
      `/v1/marketing/${a.account.username}/no_such_op`,
      `/v1/marketing/${a.account.username}/no_such_op/more`,
      `/v1/marketing/${b.account.username}/no_such_op`,
      `/v1/marketing/${b.account.username}/no_such_op/more/deeper`,
      '/v1/marketing/subscribers/1/no_such_op',
      `/v1/marketing/${a.account.username}/subscription_lists/1/no_such_op/more`,
    ];
    for (const url of urls) {
      const res = await get(url, method);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().error_code, url).toBe('not_found');
    }
  });

  it('still refuses a known operation under another account with 403, and a bad key with 401', async () => {
    const other = await get(`/v1/marketing/${b.account.username}/subscribers`);
    expect(other.statusCode).toBe(403);
    expect(other.json().error_code).toBe('auth.forbidden');
    expect((await get('/v1/marketing/no_such_op/more', 'GET', 'not-a-key')).statusCode).toBe(401);
  });

  it('serves every marketing route under an operation name that is reserved', () => {
    const ops = new Set<string>(MARKETING_OPS);
    const served = routes
      .filter((u) => u.startsWith('/v1/marketing/'))
      .map((u) => u.split('/')[u.startsWith('/v1/marketing/:username/') ? 4 : 3]!);
    expect(served.length).toBeGreaterThan(20);
    expect(served.filter((op) => !ops.has(op))).toEqual([]);
  });

  it.each([...new Set([...MARKETING_OPS, ...REFERENCE_OPS])])('refuses %s as a username', async (op) => {
    const err = await createAccount(t.ctx.database.db, op).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('account.username_reserved');
  });
});
