/** Leader election over the run's dialect: PostgreSQL advisory lock or the SQLite `leases` row. */
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, onTestFinished, vi } from 'vitest';
import { sql } from 'kysely';
import { TEST_DIALECT } from '../test/database.ts';
import { createTestContext, type TestContext } from '../test/harness.ts';
import { waitFor } from '../test/wait.ts';
import { createLeaderElector, type LeaderElector } from './leader.ts';
import { noLeader } from './leader.test-support.ts';

const RETRY_MS = 100;

let t: TestContext;
let electors: LeaderElector[];

// One database per file (creating one per test is slow on PostgreSQL); every test starts with nobody leading.
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());
beforeEach(async () => {
  await waitFor(() => noLeader(t.ctx.database), 2000, 5, 'previous leader gone');
  electors = [];
});
afterEach(async () => {
  await Promise.all(electors.map((e) => e.stop()));
});

function elector(owner: string): LeaderElector {
  const e = createLeaderElector(t.ctx.database, owner, t.ctx.log, RETRY_MS);
  electors.push(e);
  return e;
}

it('makes exactly one of two electors on one database the leader', async () => {
  const a = elector('a');
  const b = elector('b');
  await a.start();
  await b.start();
  expect([a.isLeader(), b.isLeader()]).toEqual([true, false]);
});

it('keeps the follower a follower while the leader keeps its leadership', async () => {
  const a = elector('a');
  const b = elector('b');
  await a.start();
  await b.start();
  await new Promise((r) => setTimeout(r, RETRY_MS * 4));
  expect([a.isLeader(), b.isLeader()]).toEqual([true, false]);
});

it('hands leadership to the other elector at its first retry after the leader stops', async () => {
  // Retries run only when the test advances the clock, so "first retry" is exact however loaded the machine is.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  onTestFinished(() => void vi.useRealTimers());
  const a = elector('a');
  const b = elector('b');
  await a.start();
  await b.start();

  await a.stop();
  // A stopped leader's PostgreSQL lock goes with its backend, a moment after the client ends.
  await waitFor(() => noLeader(t.ctx.database), 2000, 5, 'the stopped leader gone');
  expect(b.isLeader()).toBe(false);
  vi.advanceTimersByTime(RETRY_MS);
  await waitFor(() => b.isLeader(), 2000, 5, 'follower takes over');

  expect(a.isLeader()).toBe(false);
  await b.stop();
});

it('never makes leader an elector stopped while its first attempt is still in flight', async () => {
  const early = elector('early');
  const starting = early.start();
  await early.stop();
  await starting;
  const other = elector('other');
  await other.start();
  await new Promise((r) => setTimeout(r, RETRY_MS * 2));

  expect([early.isLeader(), other.isLeader()]).toEqual([false, true]);
});

it.runIf(TEST_DIALECT === 'sqlite')(
  'takes over a lease whose holder crashed once the lease runs out',
  async () => {
    const leaseUntil = Date.now() + 300;
    await t.ctx.database.db
      .insertInto('leases')
      .values({ name: 'scheduler', owner: 'crashed', lease_until: leaseUntil })
      .execute();
    const b = elector('b');
    await b.start();
    expect(b.isLeader()).toBe(false);

    await waitFor(() => b.isLeader(), 300 + RETRY_MS * 5, 5, 'takeover after lease expiry');
    expect(Date.now()).toBeGreaterThanOrEqual(leaseUntil);
  },
);

it.runIf(TEST_DIALECT === 'postgres')(
  'seeks leadership again after losing its database connection',
  async () => {
    const a = elector('a');
    const b = elector('b');
    await a.start();
    await b.start();
    await a.stop();
    await waitFor(() => b.isLeader(), RETRY_MS * 5, 5, 'b becomes leader');

    await sql`select pg_terminate_backend(pid) from pg_locks where locktype = 'advisory' and granted`.execute(
      t.ctx.database.db,
    );
    await waitFor(() => !b.isLeader(), 2000, 5, 'b notices the lost connection');

    await waitFor(() => b.isLeader(), RETRY_MS * 10, 5, 'b is leader again');
  },
);
