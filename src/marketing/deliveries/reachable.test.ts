/** subscriberReachable: who the marketing gate lets a delivery go to, read from the real tables. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { TEST_DIALECT } from '../../test/database.ts';
import { subscriberReachable } from './deliveries.repository.ts';

let t: TestApp;
let acct: TestAccount;
const NOW = Date.UTC(2026, 10, 28);

beforeAll(async () => {
  t = await createTestApp();
  acct = await t.createAccount();
});
afterAll(() => t.close());

async function list(doubleOptIn: number): Promise<number> {
  const row = await t.ctx.database.db
    .insertInto('subscription_lists')
    .values({
      customer_id: acct.account.customer_id,
      name: `list ${Math.random()}`,
      is_default: 0,
      subscriber_count: 0,
      double_opt_in: doubleOptIn,
      confirm_from_email: null,
      created_at: NOW,
      updated_at: NOW,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

async function subscriber(unsubscribed: number): Promise<number> {
  const email = `p${Math.random().toString(36).slice(2)}@example.org`;
  const row = await t.ctx.database.db
    .insertInto('subscribers')
    .values({
      customer_id: acct.account.customer_id,
      email,
      email_key: email,
      unsubscribed,
      created_at: NOW,
      updated_at: NOW,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

async function join(listId: number, subscriberId: number, unsubscribed: number, confirmedAt: number | null) {
  await t.ctx.database.db
    .insertInto('subscription_list_members')
    .values({
      list_id: listId,
      subscriber_id: subscriberId,
      unsubscribed,
      confirmed_at: confirmedAt,
      created_at: NOW,
      updated_at: NOW,
    })
    .execute();
}

describe(`who a marketing delivery may go to (${TEST_DIALECT})`, () => {
  it('a subscribed member of the list, or anyone not unsubscribed when there is no list', async () => {
    const db = t.ctx.database.db;
    const plain = await list(0);
    const doubleOptIn = await list(1);
    const member = await subscriber(0);
    await join(plain, member, 0, null);
    expect(await subscriberReachable(db, member, plain)).toBe(true);
    expect(await subscriberReachable(db, member, null)).toBe(true);
    // Not a member of the other list.
    expect(await subscriberReachable(db, member, doubleOptIn)).toBe(false);

    const leftList = await subscriber(0);
    await join(plain, leftList, 1, null);
    expect(await subscriberReachable(db, leftList, plain)).toBe(false);
    expect(await subscriberReachable(db, leftList, null)).toBe(true);

    const leftAll = await subscriber(1);
    await join(plain, leftAll, 0, null);
    expect(await subscriberReachable(db, leftAll, plain)).toBe(false);
    expect(await subscriberReachable(db, leftAll, null)).toBe(false);

    const unconfirmed = await subscriber(0);
    await join(doubleOptIn, unconfirmed, 0, null);
    expect(await subscriberReachable(db, unconfirmed, doubleOptIn)).toBe(false);
    const confirmed = await subscriber(0);
    await join(doubleOptIn, confirmed, 0, NOW);
    expect(await subscriberReachable(db, confirmed, doubleOptIn)).toBe(true);

    expect(await subscriberReachable(db, 987_654_321, plain)).toBe(false);
    expect(await subscriberReachable(db, 987_654_321, null)).toBe(false);
  });
});
