/** Sign-in protections over HTTP: lock-out after repeated failures (stored in the database), two-factor enrolment and sign-in, mandatory two-factor. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secret, TOTP } from 'otpauth';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import {
  createTestUser,
  postSignIn,
  signInClient,
  TEST_PASSWORD,
  type ConsoleClient,
} from './console.test-support.ts';

let t: TestApp;
let a: TestAccount;

beforeAll(async () => {
  t = await createTestApp({ config: { consoleSignInMaxFailures: 3 } });
  a = await t.createAccount();
});
afterAll(async () => t?.close());

/** Posts the sign-in form from a fresh browser; returns the response and the cookies. */
const trySignIn = (email: string, password: string) => postSignIn(t.app, email, password);

function codeFor(secret: string, email: string, offset = 0): string {
  return new TOTP({ secret: Secret.fromBase32(secret), label: email, issuer: 'Sealpost' }).generate({
    timestamp: Date.now() + offset,
  });
}

async function enrol(c: ConsoleClient, email: string): Promise<string> {
  await c.post('/console/settings/two-factor/start', { _csrf: c.csrf });
  const page = await c.get('/console/settings/two-factor');
  expect(page.body).toMatch(/<img class="qr" src="data:image\/svg\+xml;base64,/);
  const secret = /<code id="totp-key">([A-Z2-7]+)<\/code>/.exec(page.body)![1]!;
  expect(
    (await c.post('/console/settings/two-factor/enable', { _csrf: c.csrf, code: '000000' })).statusCode,
  ).toBe(303);
  expect((await c.get('/console/settings/two-factor')).body).toContain('That code is not right');
  await c.post('/console/settings/two-factor/enable', { _csrf: c.csrf, code: codeFor(secret, email) });
  expect((await c.get('/console/settings/two-factor')).body).toContain('Two-factor authentication is on.');
  return secret;
}

describe('sign-in lock-out', () => {
  it('locks an address after the configured failures, even for the right password, and says for how long', async () => {
    const u = await createTestUser(t, a.account.customer_id, 'viewer');
    for (let i = 0; i < 3; i++) expect((await trySignIn(u.email, 'wrong password')).res.statusCode).toBe(401);
    const locked = await trySignIn(u.email, TEST_PASSWORD);
    expect(locked.res.statusCode).toBe(429);
    expect(locked.res.body).toContain('Too many failed sign-ins: try again in 15 minutes.');
    expect(locked.res.headers['retry-after']).toBeDefined();
    const row = await t.ctx.database.db
      .selectFrom('sign_in_throttles')
      .selectAll()
      .where('key', '=', `email:${u.email}`)
      .executeTakeFirstOrThrow();
    expect(Number(row.locked_until)).toBeGreaterThan(Date.now());
  });
});

describe('two-factor', () => {
  it('enrols with a QR code and a first code, then asks for a code at sign-in and refuses a wrong one', async () => {
    const u = await createTestUser(t, a.account.customer_id, 'editor');
    const secret = await enrol(await signInClient(t.app, u.email), u.email);

    const { res, cookie } = await trySignIn(u.email, TEST_PASSWORD);
    expect(res.headers.location).toBe('/console/sign-in/two-factor?next=%2Fconsole');
    expect((await t.app.inject({ method: 'GET', url: '/console', headers: { cookie } })).statusCode).toBe(
      303,
    );
    const form = await t.app.inject({
      method: 'GET',
      url: res.headers.location as string,
      headers: { cookie },
    });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)![1]!;
    const post = (code: string) =>
      t.app.inject({
        method: 'POST',
        url: '/console/sign-in/two-factor',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ _csrf: csrf, code, next: '/console/settings' }).toString(),
      });
    expect((await post('123456')).statusCode).toBe(401);
    // The enrolment used up the current step's code: the next step's code (within the drift window) signs in.
    const ok = await post(codeFor(secret, u.email, 30_000));
    expect(ok.headers.location).toBe('/console/settings');
    expect(
      (await t.app.inject({ method: 'GET', url: '/console/settings', headers: { cookie } })).statusCode,
    ).toBe(200);
  });

  it('refuses a code that was already accepted, and a code of an earlier step, at the next sign-in', async () => {
    const u = await createTestUser(t, a.account.customer_id, 'editor');
    const secret = await enrol(await signInClient(t.app, u.email), u.email);
    const secondFactor = async (code: string) => {
      const { res, cookie } = await trySignIn(u.email, TEST_PASSWORD);
      const url = res.headers.location as string;
      const form = await t.app.inject({ method: 'GET', url, headers: { cookie } });
      const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)![1]!;
      return t.app.inject({
        method: 'POST',
        url: '/console/sign-in/two-factor',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ _csrf: csrf, code, next: '/console' }).toString(),
      });
    };
    const next = codeFor(secret, u.email, 30_000);
    expect((await secondFactor(next)).statusCode).toBe(303);
    const replayed = await secondFactor(next);
    expect(replayed.statusCode).toBe(401);
    expect(replayed.body).toContain('That code is not right');
    expect((await secondFactor(codeFor(secret, u.email))).statusCode).toBe(401);
    const row = await t.ctx.database.db
      .selectFrom('users')
      .select('totp_last_step')
      .where('id', '=', u.id)
      .executeTakeFirstOrThrow();
    expect(Number(row.totp_last_step)).toBeGreaterThanOrEqual(Math.floor((Date.now() + 30_000) / 30_000) - 1);
    const failures = await t.ctx.database.db
      .selectFrom('audit_log')
      .select('action')
      .where('target', '=', `user:${u.id}`)
      .where('action', '=', 'sign_in.failure')
      .execute();
    expect(failures.length).toBe(2);
  });

  it('when an owner makes it mandatory, a user without it can only reach the set-up page', async () => {
    const b = await t.createAccount();
    const owner = await createTestUser(t, b.account.customer_id, 'owner');
    const viewer = await createTestUser(t, b.account.customer_id, 'viewer');
    const oc = await signInClient(t.app, owner.email);
    await enrol(oc, owner.email);
    await oc.post('/console/settings/two-factor/require', { _csrf: oc.csrf, required: 'yes' });
    const vc = await signInClient(t.app, viewer.email);
    const res = await vc.get('/console/domains');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/console/settings/two-factor');
    expect((await vc.get('/console/settings/two-factor')).body).toContain(
      'This account requires two-factor authentication',
    );
    const audit = await oc.get('/console/settings/audit?action=account.require_totp');
    expect(audit.body).toContain(`account:${b.account.customer_id}`);
  });
});
