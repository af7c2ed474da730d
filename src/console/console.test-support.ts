/** Test helpers for console pages: a user with a password, signing in through the real form, and posting forms with the session. */
import { afterAll, beforeAll } from 'vitest';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { BuildOptions } from '../app/app.ts';
import { createTestApp, type TestAccount, type TestApp, type TestContextOptions } from '../test/harness.ts';
import { createUser, type User } from '../users/users.service.ts';

/** The password test users get. */
export const TEST_PASSWORD = 'correct horse battery';

/** Creates a console user in an account. */
export async function createTestUser(
  t: TestApp,
  customerId: number,
  role: string,
  opts: { email?: string; canReadProtected?: boolean; operator?: boolean } = {},
): Promise<User> {
  const email = opts.email ?? `${role}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  return createUser(
    t.ctx.database.db,
    {
      customerId,
      email,
      role,
      password: TEST_PASSWORD,
      canReadProtected: opts.canReadProtected,
      operator: opts.operator,
    },
    { type: 'system', id: 'test' },
  );
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

/** Posts the sign-in form from a fresh browser: the form page's answer and the sign-in's. */
export async function postSignIn(
  app: FastifyInstance,
  email: string,
  password = TEST_PASSWORD,
): Promise<{ form: LightMyRequestResponse; res: LightMyRequestResponse; cookie: string }> {
  const form = await app.inject({ method: 'GET', url: '/console/sign-in' });
  const cookie = mergeCookies('', form.headers['set-cookie']);
  const token = /name="_csrf" value="([^"]+)"/.exec(form.body)![1]!;
  const res = await app.inject({
    method: 'POST',
    url: '/console/sign-in',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ _csrf: token, email, password, next: '/console' }).toString(),
  });
  return { form, res, cookie: mergeCookies(cookie, res.headers['set-cookie']) };
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
