/** One-time set-password links: only the newest works, and none once the user is disabled. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { createTestUser } from './console.test-support.ts';
import { disableUser, issueUserLink } from '../users/users.service.ts';

let t: TestApp;
let a: TestAccount;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.createAccount();
});
afterAll(async () => t?.close());

const NOT_VALID = 'This link is not valid: it may have expired or been used already.';
const linkPage = (token: string) =>
  t.app.inject({ method: 'GET', url: `/console/set-password?token=${encodeURIComponent(token)}` });

describe('set-password links', () => {
  it('stop working when a newer link is issued for the same user', async () => {
    const u = await createTestUser(t, a.account.customer_id, 'viewer');
    const older = await issueUserLink(t.ctx.database.db, u, 'reset');
    const newer = await issueUserLink(t.ctx.database.db, u, 'invite');
    expect((await linkPage(older)).body).toContain(NOT_VALID);
    const page = await linkPage(newer);
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain(NOT_VALID);
  });

  it('stop working when the user is disabled', async () => {
    const u = await createTestUser(t, a.account.customer_id, 'viewer');
    const token = await issueUserLink(t.ctx.database.db, u, 'reset');
    await disableUser(t.ctx.database.db, u, { type: 'system', id: 'test' });
    expect((await linkPage(token)).body).toContain(NOT_VALID);
  });
});
