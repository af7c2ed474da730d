/** Test helpers for console pages: a user with a password, signing in through the real form, and posting forms with the session. */
import { afterAll, beforeAll, expect } from 'vitest';
import { Secret, TOTP } from 'otpauth';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { BuildOptions } from '../app/app.ts';
import { createTestApp, type TestAccount, type TestApp, type TestContextOptions } from '../test/harness.ts';
import { createUser, type User } from '../users/users.service.ts';
import { updateUser } from '../users/users.repository.ts';
import { hashPassword } from '../users/passwords.ts';

/** The password test users get. */
export const TEST_PASSWORD = 'correct horse battery';

/**
 * TEST_PASSWORD hashed at scrypt N=1024, made once per worker. Test users get it instead of a hash at the password cost
 * (N=32768, about 0.1 s of CPU each to make and again at each sign-in): the verifier reads the cost from the hash, so
 * signing in is checked the same way. Tests of hashing itself and of set-password links use the real cost.
 */
let cheapHash: Promise<string> | undefined;

/** Creates a console user in an account. */
export async function createTestUser(
  t: TestApp,
  customerId: number,
  role: string,
  opts: { email?: string; canReadProtected?: boolean; operator?: boolean } = {},
): Promise<User> {
  const email = opts.email ?? `${role}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const user = await createUser(
    t.ctx.database.db,
    { customerId, email, role, canReadProtected: opts.canReadProtected, operator: opts.operator },
    { type: 'system', id: 'test' },
  );
  cheapHash ??= hashPassword(TEST_PASSWORD, 1024);
  await updateUser(t.ctx.database.db, user.id, { password_hash: await cheapHash });
  return { ...user, hasPassword: true };
}

/** Cookies of a response, as a `cookie` request header value merged over `jar`. */
export function mergeCookies(jar: string, setCookie: string | string[] | undefined): string {
  const map = new Map(
    jar
      .split('; ')
      .filter(Boolean)
      .map((c) => [c.split('=')[0]!, c] as const),
  );
  for (const line of [setCookie ?? []].flat()) {
    const pair = line.split(';')[0]!;
    const name = pair.split('=')[0]!;
    if (/max-age=0/i.test(line)) map.delete(name);
    else map.set(name, pair);
  }
  return [...map.values()].join('; ');
}

/** A signed-in console client over inject: its cookie jar and its CSRF token. */
export interface ConsoleClient {
  cookie: string;
  csrf: string;
  get(url: string): Promise<LightMyRequestResponse>;
  post(url: string, form: Record<string, string>): Promise<LightMyRequestResponse>;
}

/** Posts urlencoded fields as given (a field may repeat, or be longer than any form sends) with the cookies given. */
export function postFields(
  app: FastifyInstance,
  url: string,
  cookie: string,
  fields: [string, string][],
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url,
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  });
}

/** Opens a page of a form for people without a session (sign-in, forgot password): its cookie and form token. */
export async function openForm(
  app: FastifyInstance,
  url = '/console/sign-in',
): Promise<{ form: LightMyRequestResponse; cookie: string; token: string }> {
  const form = await app.inject({ method: 'GET', url });
  const cookie = mergeCookies('', form.headers['set-cookie']);
  return { form, cookie, token: /name="_csrf" value="([^"]+)"/.exec(form.body)![1]! };
}

/** Posts the sign-in form from a fresh browser: the form page's answer and the sign-in's. */
export async function postSignIn(
  app: FastifyInstance,
  email: string,
  password = TEST_PASSWORD,
): Promise<{ form: LightMyRequestResponse; res: LightMyRequestResponse; cookie: string }> {
  const { form, cookie, token } = await openForm(app);
  const res = await postFields(app, '/console/sign-in', cookie, [
    ['_csrf', token],
    ['email', email],
    ['password', password],
    ['next', '/console'],
  ]);
  return { form, res, cookie: mergeCookies(cookie, res.headers['set-cookie']) };
}

/**
 * What the pages of people without a session can change: throttles, sessions, one-time links, the users' passwords and
 * failure counts, and the audit log; equal before and after a refused form.
 */
export async function signInState(t: TestApp) {
  const db = t.ctx.database.db;
  return {
    throttles: await db.selectFrom('sign_in_throttles').selectAll().orderBy('key').execute(),
    sessions: await db.selectFrom('console_sessions').select(['id', 'state']).orderBy('id').execute(),
    links: await db.selectFrom('user_tokens').select(['id', 'used_at']).orderBy('id').execute(),
    users: await db
      .selectFrom('users')
      .select(['id', 'password_hash', 'failed_attempts', 'locked_until'])
      .orderBy('id')
      .execute(),
    audit: await db.selectFrom('audit_log').select('id').orderBy('id').execute(),
  };
}

/** Signs in through the sign-in form and returns a client with the session. */
export async function signInClient(
  app: FastifyInstance,
  email: string,
  password = TEST_PASSWORD,
): Promise<ConsoleClient> {
  const { res, cookie } = await postSignIn(app, email, password);
  if (res.statusCode !== 303) throw new Error(`sign-in failed: ${res.statusCode}`);
  const page = await app.inject({ method: 'GET', url: '/console/settings/two-factor', headers: { cookie } });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)![1]!;
  return {
    cookie,
    csrf,
    get: (url) => app.inject({ method: 'GET', url, headers: { cookie } }),
    post: (url, f) =>
      app.inject({
        method: 'POST',
        url,
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(f).toString(),
      }),
  };
}

/** A file's app, account and one signed-in client per role: filled in place before its tests, so they may be named at the top level. */
export interface ConsoleTestBed<R extends readonly string[]> {
  t: TestApp;
  a: TestAccount;
  /** The clients, in the order of the roles asked for. */
  clients: { [K in keyof R]: ConsoleClient };
}

/** Registers hooks that build an app with one account and a signed-in user per role, and close the app after the tests. */
export function consoleTestBed<const R extends readonly string[]>(
  roles: R,
  opts: TestContextOptions & BuildOptions = {},
): ConsoleTestBed<R> {
  const t = {} as TestApp;
  const a = {} as TestAccount;
  const clients = roles.map(() => ({}) as ConsoleClient);
  beforeAll(async () => {
    Object.assign(t, await createTestApp(opts));
    Object.assign(a, await t.createAccount());
    for (const [i, role] of roles.entries())
      Object.assign(
        clients[i]!,
        await signInClient(t.app, (await createTestUser(t, a.account.customer_id, role)).email),
      );
  });
  afterAll(async () => t.close?.());
  return { t, a, clients: clients as { [K in keyof R]: ConsoleClient } };
}

/** The TOTP code of `secret` at now plus `offset` milliseconds. */
export function codeFor(secret: string, email: string, offset = 0): string {
  return new TOTP({ secret: Secret.fromBase32(secret), label: email, issuer: 'Sealpost' }).generate({
    timestamp: Date.now() + offset,
  });
}

/** Sets up two-factor through the settings page (one wrong code first, which must be refused); returns the secret. */
export async function enrol(c: ConsoleClient, email: string): Promise<string> {
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
