/**
 * Two-factor recovery codes over HTTP: made when two-factor is turned on and shown once, kept as hashes, each signing in
 * once in place of the app's code, renewed only after a right code from the app; and wrong codes of either kind counted
 * against the one lock-out, also when many arrive at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import {
  codeFor,
  createTestUser,
  postSignIn,
  signInClient,
  type ConsoleClient,
} from './console.test-support.ts';

let t: TestApp;
let a: TestAccount;

beforeAll(async () => {
  t = await createTestApp({ config: { consoleSignInMaxFailures: 3 } });
  a = await t.createAccount();
});
afterAll(async () => t?.close());

const auditCount = async (userId: string, action: string) =>
  (
    await t.ctx.database.db
      .selectFrom('audit_log')
      .select('id')
      .where('target', '=', `user:${userId}`)
      .where('action', '=', action)
      .execute()
  ).length;

const codesOf = (body: string) =>
  [...body.matchAll(/<li><code>([0-9a-z]{5}-[0-9a-z]{5})<\/code><\/li>/g)].map((m) => m[1]!);

/** A user with two-factor turned on through the settings page: its client, secret and first set of codes. */
async function enrolled(role = 'editor') {
  const u = await createTestUser(t, a.account.customer_id, role);
  const c = await signInClient(t.app, u.email);
  await c.post('/console/settings/two-factor/start', { _csrf: c.csrf });
  const page = await c.get('/console/settings/two-factor');
  const secret = /<code id="totp-key">([A-Z2-7]+)<\/code>/.exec(page.body)![1]!;
  const on = await c.post('/console/settings/two-factor/enable', {
    _csrf: c.csrf,
    code: codeFor(secret, u.email),
  });
  expect(on.headers.location).toMatch(/^\/console\/settings\/two-factor\/recovery-codes\/[\w-]+$/);
  const shown = await c.get(on.headers.location as string);
  return { u, c, secret, codes: codesOf(shown.body), shownAt: on.headers.location as string };
}

/** Signs in with the password and gives the second step `code` (a recovery code when `recovery`), on a fresh session. */
async function secondStep(email: string, code: string, recovery: boolean) {
  const pending = await waitingSignIn(email);
  const res = await postCode(pending, code, recovery);
  return Object.assign(res, { cookie: pending.cookie });
}

/** Posts the second step of a sign-in waiting for it. */
function postCode(
  s: { cookie: string; csrf: string },
  code: string,
  recovery: boolean,
  remoteAddress?: string,
) {
  const fields: Record<string, string> = { _csrf: s.csrf, code, next: '/console/settings' };
  if (recovery) fields.recovery = 'yes';
  return t.app.inject({
    method: 'POST',
    url: '/console/sign-in/two-factor',
    remoteAddress,
    headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  });
}

/** A sign-in whose password was right, waiting for its second step (the recovery-code form): its cookie and form token. */
async function waitingSignIn(email: string) {
  const { res, cookie } = await postSignIn(t.app, email);
  const url = `${res.headers.location as string}&recovery`;
  const form = await t.app.inject({ method: 'GET', url, headers: { cookie } });
  expect(form.body).toContain('<label for="code">Recovery code</label>');
  return { cookie, csrf: /name="_csrf" value="([^"]+)"/.exec(form.body)![1]! };
}

const settings = (c: ConsoleClient) => c.get('/console/settings/two-factor');

describe('recovery codes made when two-factor is turned on', () => {
  it('are shown once, ten of them, and stored only as hashes', async () => {
    const { u, c, codes, shownAt } = await enrolled();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    const again = await c.get(shownAt);
    expect(again.statusCode).toBe(410);
    expect(codesOf(again.body)).toEqual([]);
    const rows = await t.ctx.database.db
      .selectFrom('user_recovery_codes')
      .select(['code_hash', 'used_at'])
      .where('user_id', '=', u.id)
      .execute();
    expect(rows).toHaveLength(10);
    for (const row of rows) {
      expect(row.code_hash).toMatch(/^scrypt\$/);
      for (const code of codes) expect(row.code_hash).not.toContain(code.replace('-', ''));
    }
    expect(await auditCount(u.id, 'user.recovery_codes_create')).toBe(1);
    expect((await settings(c)).body).toContain('<strong>10 of 10</strong> recovery codes left');
  });
});

describe('signing in with a recovery code', () => {
  it('works once in place of the app code, says how many are left, and is audited', async () => {
    const { u, codes } = await enrolled();
    const typed = codes[3]!.toUpperCase().replace('-', ' ');
    const ok = await secondStep(u.email, typed, true);
    expect(ok.statusCode).toBe(303);
    expect(ok.headers.location).toBe('/console/settings');
    const page = await t.app.inject({
      method: 'GET',
      url: '/console/settings/two-factor',
      headers: { cookie: ok.cookie },
    });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('You signed in with a recovery code');
    expect(page.body).toContain('<strong>9 of 10</strong> recovery codes left');
    expect(await auditCount(u.id, 'user.recovery_code_use')).toBe(1);

    const reused = await secondStep(u.email, codes[3]!, true);
    expect(reused.statusCode).toBe(401);
    expect(reused.body).toContain('That recovery code is not right, or was already used');
    expect(await auditCount(u.id, 'sign_in.recovery_code_failure')).toBe(1);
    expect(await auditCount(u.id, 'user.recovery_code_use')).toBe(1);
  });

  it('is refused in the app-code field, and an app code is refused in the recovery-code field', async () => {
    const { u, secret, codes } = await enrolled();
    expect((await secondStep(u.email, codes[0]!, false)).statusCode).toBe(401);
    expect((await secondStep(u.email, codeFor(secret, u.email, 30_000), true)).statusCode).toBe(401);
    expect(await auditCount(u.id, 'user.recovery_code_use')).toBe(0);
  });
});

describe('a new set of recovery codes', () => {
  it('needs a right code from the app, and ends the old set', async () => {
    const { u, c, secret, codes } = await enrolled();
    const refused = await c.post('/console/settings/two-factor/recovery-codes', {
      _csrf: c.csrf,
      code: '000000',
    });
    expect(refused.headers.location).toBe('/console/settings/two-factor');
    expect(await auditCount(u.id, 'user.recovery_codes_failure')).toBe(1);
    expect(await auditCount(u.id, 'user.recovery_codes_create')).toBe(1);

    const made = await c.post('/console/settings/two-factor/recovery-codes', {
      _csrf: c.csrf,
      code: codeFor(secret, u.email, 30_000),
    });
    const fresh = codesOf((await c.get(made.headers.location as string)).body);
    expect(fresh).toHaveLength(10);
    expect(fresh.some((code) => codes.includes(code))).toBe(false);
    expect(await auditCount(u.id, 'user.recovery_codes_create')).toBe(2);
    expect((await secondStep(u.email, codes[0]!, true)).statusCode).toBe(401);
    expect((await secondStep(u.email, fresh[0]!, true)).statusCode).toBe(303);
  });

  it('is gone with two-factor when it is turned off', async () => {
    const { u, c, secret } = await enrolled();
    await c.post('/console/settings/two-factor/disable', {
      _csrf: c.csrf,
      code: codeFor(secret, u.email, 30_000),
    });
    const rows = await t.ctx.database.db
      .selectFrom('user_recovery_codes')
      .select('id')
      .where('user_id', '=', u.id)
      .execute();
    expect(rows).toEqual([]);
  });
});

describe('wrong second-step codes', () => {
  it('count wrong recovery codes and wrong app codes against the same lock-out', async () => {
    const { u, codes } = await enrolled();
    const pending = await waitingSignIn(u.email);
    expect((await postCode(pending, '111111', false)).statusCode).toBe(401);
    expect((await postCode(pending, 'aaaaa-aaaaa', true)).statusCode).toBe(401);
    expect((await postCode(pending, codes[1]!.slice(0, 2) + 'aaa-aaaaa', true)).statusCode).toBe(401);
    // The limit is reached: a right recovery code is refused, and so is a right app code on another sign-in.
    const locked = await postCode(pending, codes[0]!, true);
    expect(locked.statusCode).toBe(429);
    expect(locked.body).toContain('Too many failed sign-ins');
    expect((await postSignIn(t.app, u.email)).res.statusCode).toBe(429);
    expect(await auditCount(u.id, 'sign_in.failure')).toBe(1);
    expect(await auditCount(u.id, 'sign_in.recovery_code_failure')).toBe(2);
    expect(await auditCount(u.id, 'user.recovery_code_use')).toBe(0);
  });

  it('checks at most the limit when 40 arrive at once for one sign-in, and then refuses the right code', async () => {
    const { u, secret } = await enrolled();
    const remoteAddress = '203.0.113.60';
    const burst = await waitingSignIn(u.email);
    const later = await waitingSignIn(u.email);
    const answers: LightMyRequestResponse[] = await Promise.all(
      Array.from({ length: 40 }, (_, i) => postCode(burst, String(100000 + i), i % 2 === 1, remoteAddress)),
    );
    // Each is refused: a wrong code (401), locked (429), or the sign-in that the lock ended (303 back to sign-in).
    for (const r of answers) {
      expect([401, 429, 303]).toContain(r.statusCode);
      if (r.statusCode === 303) expect(r.headers.location).toMatch(/^\/console\/sign-in\?/);
    }
    const checked =
      (await auditCount(u.id, 'sign_in.failure')) + (await auditCount(u.id, 'sign_in.recovery_code_failure'));
    expect(checked).toBeLessThanOrEqual(3);
    expect(answers.filter((r) => r.statusCode === 401).length).toBeLessThanOrEqual(3);
    const right = await postCode(later, codeFor(secret, u.email, 30_000), false, remoteAddress);
    expect(right.statusCode).toBe(429);
    expect(right.body).toContain('Too many failed sign-ins');
  });
});
