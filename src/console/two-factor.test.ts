/** Two-factor codes: every code checked is counted and audited, on the settings page and at sign-in, and what a user who must set it up may reach. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import {
  codeFor,
  createTestUser,
  enrol,
  postFields,
  postSignIn,
  signInClient,
} from './console.test-support.ts';
import { totpRequired } from '../users/totp.service.ts';

let t: TestApp;
let a: TestAccount;

beforeAll(async () => {
  t = await createTestApp({ config: { consoleSignInMaxFailures: 3 } });
  a = await t.createAccount();
});
afterAll(async () => t?.close());

const auditCount = async (target: string, action: string) =>
  (
    await t.ctx.database.db
      .selectFrom('audit_log')
      .select('id')
      .where('target', '=', target)
      .where('action', '=', action)
      .execute()
  ).length;

describe('turning two-factor off', () => {
  it('counts and audits every wrong code, and refuses even the right one once locked out', async () => {
    const u = await createTestUser(t, a.account.customer_id, 'editor');
    const c = await signInClient(t.app, u.email);
    const secret = await enrol(c, u.email);
    for (let i = 0; i < 3; i++)
      expect(
        (await c.post('/console/settings/two-factor/disable', { _csrf: c.csrf, code: '000000' })).statusCode,
      ).toBe(303);
    expect(await auditCount(`user:${u.id}`, 'user.totp_disable_failure')).toBe(3);
    await c.post('/console/settings/two-factor/disable', {
      _csrf: c.csrf,
      code: codeFor(secret, u.email, 30_000),
    });
    expect(await auditCount(`user:${u.id}`, 'user.totp_disable')).toBe(0);
    expect(await auditCount(`user:${u.id}`, 'sign_in.locked')).toBe(1);
    expect((await c.get('/console/settings/two-factor')).body).toContain('Two-factor authentication is on.');
    expect((await postSignIn(t.app, u.email)).res.statusCode).toBe(429);
  });
});

describe('the code step of a sign-in', () => {
  it('is not reset by signing in again with the right password', async () => {
    const u = await createTestUser(t, a.account.customer_id, 'editor');
    await enrol(await signInClient(t.app, u.email), u.email);
    const wrongCode = async () => {
      const { res, cookie } = await postSignIn(t.app, u.email);
      expect(res.statusCode).toBe(303);
      const url = res.headers.location as string;
      const form = await t.app.inject({ method: 'GET', url, headers: { cookie } });
      const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)![1]!;
      const post = await postFields(t.app, '/console/sign-in/two-factor', cookie, [
        ['_csrf', csrf],
        ['code', '000000'],
      ]);
      expect(post.statusCode).toBe(401);
    };
    // Three wrong codes, each after a fresh and right password: the limit of three is reached all the same.
    for (let i = 0; i < 3; i++) await wrongCode();
    const locked = await postSignIn(t.app, u.email);
    expect(locked.res.statusCode).toBe(429);
    expect(locked.res.body).toContain('Too many failed sign-ins');
  });
});

describe('a user who must still set up two-factor', () => {
  it('cannot lift the account rule from the set-up page, even as an owner, and does not see it offered', async () => {
    const b = await t.createAccount();
    const first = await createTestUser(t, b.account.customer_id, 'owner');
    const second = await createTestUser(t, b.account.customer_id, 'owner');
    const fc = await signInClient(t.app, first.email);
    await enrol(fc, first.email);
    await fc.post('/console/settings/two-factor/require', { _csrf: fc.csrf, required: 'yes' });
    const sc = await signInClient(t.app, second.email);
    const elsewhere = await sc.get('/console/domains');
    expect(elsewhere.statusCode).toBe(303);
    expect(elsewhere.headers.location).toBe('/console/settings/two-factor');
    const page = await sc.get('/console/settings/two-factor');
    expect(page.body).toContain('This account requires two-factor authentication');
    expect(page.body).not.toContain('/console/settings/two-factor/require');
    const lift = await sc.post('/console/settings/two-factor/require', { _csrf: sc.csrf, required: 'no' });
    expect(lift.statusCode).toBe(303);
    expect(lift.headers.location).toBe('/console/settings/two-factor');
    expect(await totpRequired(t.ctx.database.db, b.account.customer_id)).toBe(true);
    expect(await auditCount(`account:${b.account.customer_id}`, 'account.require_totp')).toBe(1);
    expect((await fc.get('/console/settings/audit?action=account.require_totp')).body).toContain(
      `account:${b.account.customer_id}`,
    );
    expect((await sc.post('/console/settings/two-factor/start', { _csrf: sc.csrf })).statusCode).toBe(303);
    expect((await sc.get('/console/settings/two-factor')).body).toContain('Set up two-factor');
  });
});
