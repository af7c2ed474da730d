/** Console sessions behind an https public address: Secure cookies, the absolute end of a session, scrypt passwords. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { createTestUser, postSignIn, signInClient, TEST_PASSWORD } from './console.test-support.ts';
import { createUser } from '../users/users.service.ts';

let t: TestApp;
let a: TestAccount;

beforeAll(async () => {
  t = await createTestApp({ config: { publicUrl: 'https://mail.clinic.example' } });
  a = await t.createAccount();
});
afterAll(async () => t?.close());

describe('console sessions over https', () => {
  it('marks the form and session cookies Secure, HttpOnly and SameSite', async () => {
    const owner = await createTestUser(t, a.account.customer_id, 'owner');
    const { form, res } = await postSignIn(t.app, owner.email);
    expect(res.statusCode).toBe(303);
    const lines = [form.headers['set-cookie'], res.headers['set-cookie']].flat() as string[];
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line).toMatch(/; Secure/);
      expect(line).toMatch(/; HttpOnly/);
      expect(line).toMatch(/; SameSite=/);
    }
  });

  it('ends a session at its absolute end, however active it was', async () => {
    const owner = await createTestUser(t, a.account.customer_id, 'viewer');
    const c = await signInClient(t.app, owner.email);
    expect((await c.get('/console/settings')).statusCode).toBe(200);
    const sessions = await t.ctx.database.db
      .selectFrom('console_sessions')
      .select(['id', 'created_at', 'expires_at'])
      .where('user_id', '=', owner.id)
      .execute();
    expect(sessions).toHaveLength(1);
    expect(Number(sessions[0]!.expires_at) - Number(sessions[0]!.created_at)).toBe(12 * 3_600_000);
    await t.ctx.database.db
      .updateTable('console_sessions')
      .set({ expires_at: Date.now() - 1 })
      .where('user_id', '=', owner.id)
      .execute();
    const res = await c.get('/console/settings');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/console/sign-in?next=%2Fconsole%2Fsettings');
  });

  it('keeps passwords as salted scrypt hashes, never the password', async () => {
    const hashOf = async (id: string) =>
      (
        await t.ctx.database.db
          .selectFrom('users')
          .select('password_hash')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).password_hash;
    // Through the product's own path: test users get a cheaper hash of the same form.
    const make = async () =>
      hashOf(
        (
          await createUser(
            t.ctx.database.db,
            {
              customerId: a.account.customer_id,
              email: `e${Math.random()}@example.com`,
              role: 'editor',
              password: TEST_PASSWORD,
            },
            { type: 'system', id: 'test' },
          )
        ).id,
      );
    const first = await make();
    expect(first).toMatch(/^scrypt\$32768\$8\$1\$[^$]+\$[^$]+$/);
    expect(first).not.toContain(TEST_PASSWORD);
    const second = await make();
    expect(second).not.toBe(first);
  });
});
