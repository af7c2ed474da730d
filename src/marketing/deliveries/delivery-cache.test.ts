/** What the marketing lane keeps between deliveries: how long a domain's keys and a gate's row stay, on a real database. */
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import type { DeliveryRow } from './deliveries.repository.ts';
import { handOver, signingDomain, takeOver } from './delivery-cache.ts';

let t: TestApp;
let acct: TestAccount;

beforeAll(async () => {
  t = await createTestApp();
  acct = await t.createAccount();
});
afterEach(() => vi.useRealTimers());
afterAll(async () => t.close());

it("keeps a verified domain's keys for five seconds, then reads the domain again", async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  const customer = acct.account.customer_id;
  const first = await signingDomain(t.ctx, customer, acct.domain);
  expect(first?.name).toBe(acct.domain);
  expect(first?.dkim_private_key).toBeTruthy();

  await t.ctx.database.db
    .updateTable('domains')
    .set({ verified: 0 })
    .where('name', '=', acct.domain)
    .execute();
  vi.setSystemTime(Date.now() + 4_000);
  expect((await signingDomain(t.ctx, customer, acct.domain))?.name).toBe(acct.domain);
  vi.setSystemTime(Date.now() + 1_500);
  expect(await signingDomain(t.ctx, customer, acct.domain)).toBeUndefined();
});

it("hands the gate's row to the load of the same attempt once, and only while it is fresh", () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  const row = { id: 42, status: 'queued' } as DeliveryRow;
  handOver(t.ctx, row);
  expect(takeOver(t.ctx, 42)).toBe(row);
  expect(takeOver(t.ctx, 42)).toBeUndefined();

  handOver(t.ctx, row);
  vi.setSystemTime(Date.now() + 1_500);
  expect(takeOver(t.ctx, 42)).toBeUndefined();
});
