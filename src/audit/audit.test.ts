/** The audit trail as a service: append, search with filters newest first, and the retention purge. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { purgeAudit, record, searchAudit } from './audit.service.ts';

let t: TestApp;
let a: TestAccount;
let other: TestAccount;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.createAccount();
  other = await t.createAccount();
});
afterAll(async () => t?.close());

describe('audit trail', () => {
  it('keeps entries per account, newest first, filtered by action, actor and date', async () => {
    const db = t.ctx.database.db;
    const day = Date.UTC(2026, 0, 10);
    await record(db, {
      accountId: a.account.customer_id,
      actor: { type: 'key', id: 'k1' },
      action: 'message.content_read',
      target: 'message:m1',
      ip: '192.0.2.1',
      at: day,
      detail: { recipient: 'x@example.org' },
    });
    await record(db, {
      accountId: a.account.customer_id,
      actor: { type: 'user', id: 'u1' },
      action: 'key.create',
      target: 'key:k2',
      at: day + 1000,
    });
    await record(db, {
      accountId: other.account.customer_id,
      actor: { type: 'user', id: 'u9' },
      action: 'key.create',
      target: 'key:k9',
      at: day + 2000,
    });
    // The account's own set-up (its domain and key, recorded now) is after `to`.
    const to = day + 86_400_000;
    const all = await searchAudit(db, { customerId: a.account.customer_id, to, limit: 10 });
    expect(all.map((e) => e.target)).toEqual(['key:k2', 'message:m1']);
    expect(all[1]).toMatchObject({
      actor_type: 'key',
      actor_id: 'k1',
      ip: '192.0.2.1',
      at: '2026-01-10T00:00:00.000Z',
      detail: { recipient: 'x@example.org' },
    });
    expect(
      (await searchAudit(db, { customerId: a.account.customer_id, action: 'key.create', to, limit: 10 })).map(
        (e) => e.target,
      ),
    ).toEqual(['key:k2']);
    expect(
      (await searchAudit(db, { customerId: a.account.customer_id, actorId: 'k1', limit: 10 })).map(
        (e) => e.target,
      ),
    ).toEqual(['message:m1']);
    expect(
      (await searchAudit(db, { customerId: a.account.customer_id, from: day + 500, to, limit: 10 })).map(
        (e) => e.target,
      ),
    ).toEqual(['key:k2']);
  });

  it('purges only entries older than the retention', async () => {
    const db = t.ctx.database.db;
    const now = Date.now();
    await record(db, {
      accountId: a.account.customer_id,
      actor: { type: 'system', id: 'test' },
      action: 'old',
      target: 'x',
      at: now - 40 * 86_400_000,
    });
    await record(db, {
      accountId: a.account.customer_id,
      actor: { type: 'system', id: 'test' },
      action: 'recent',
      target: 'x',
      at: now - 10 * 86_400_000,
    });
    await purgeAudit(db, 30, now);
    const actions = (await searchAudit(db, { customerId: a.account.customer_id, limit: 100 })).map(
      (e) => e.action,
    );
    expect(actions).toContain('recent');
    expect(actions).not.toContain('old');
  });
});
