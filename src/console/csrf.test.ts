/** Every state-changing console route, found in the router, refuses a post without the form token and changes nothing. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { createTestUser, signInClient, type ConsoleClient } from './console.test-support.ts';

let t: TestApp;
let a: TestAccount;
let owner: ConsoleClient;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.createAccount();
  owner = await signInClient(t.app, (await createTestUser(t, a.account.customer_id, 'owner')).email);
});
afterAll(async () => t?.close());

const TABLES = [
  'users',
  'user_tokens',
  'account_security',
  'audit_log',
  'domains',
  'api_keys',
  'webhook_endpoints',
  'webhook_deliveries',
  'dynamic_templates',
  'email_suppressions',
  'email_settings',
  'forms',
  'subscription_lists',
  'subscribers',
  'dynamic_lists',
  'campaign_mailings',
  'campaign_mailing_sends',
  'marketing_settings',
  'drip_campaigns',
  'jobs',
] as const;

/** Row counts of the tables a console action could change, and the users' and lists' last changes. */
async function state(): Promise<Record<string, unknown>> {
  const db = t.ctx.database.db;
  const out: Record<string, unknown> = {};
  for (const table of TABLES)
    out[table] = Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  out.users_rows = await db.selectFrom('users').selectAll().orderBy('id').execute();
  return out;
}

/** The full paths of the routes taking `method`, read from Fastify's printed route tree. */
function routesOf(tree: string, method: string): string[] {
  const stack: string[] = [];
  const out: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^((?:│ {3}| {4})*)(?:├── |└── )(\S+)(?: \(([^)]*)\))?/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    stack.length = depth;
    stack.push(m[2]!);
    if (m[3]?.split(', ').includes(method)) out.push(stack.join(''));
  }
  return out;
}

describe('console form tokens', () => {
  it('are required by every POST route of the console: refused, or sent to sign in, and nothing changes', async () => {
    const paths = routesOf(t.app.printRoutes({ method: 'POST', commonPrefix: false }), 'POST').filter((p) =>
      p.startsWith('/console/'),
    );
    expect(paths.length).toBeGreaterThan(40);
    expect(paths).toContain('/console/settings/suppressions/remove');
    const before = await state();
    const accepted: string[] = [];
    for (const path of paths) {
      const url = path.replace(/:\w+/g, '1');
      for (const cookie of [owner.cookie, '']) {
        const res = await t.app.inject({
          method: 'POST',
          url,
          headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
          payload: 'address=x%40example.org&email=x%40example.org&name=x&on=false&role=viewer',
        });
        const toSignIn =
          res.statusCode === 303 && String(res.headers.location).startsWith('/console/sign-in');
        if (![400, 403].includes(res.statusCode) && !toSignIn)
          accepted.push(`${url} ${cookie ? 'signed in' : 'signed out'}: ${res.statusCode}`);
      }
    }
    expect(accepted).toEqual([]);
    expect(await state()).toEqual(before);
  });
});
