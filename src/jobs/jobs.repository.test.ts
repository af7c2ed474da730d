/** Work rows in the database: enqueue, claim with a lease, fencing by lease owner, retry bookkeeping, pruning. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../test/harness.ts';
import type { Database } from '../db/connect.ts';
import {
  claimJobs,
  completeJob,
  enqueueEach,
  enqueueJob,
  enqueueJobs,
  extendLease,
  failJob,
  findJob,
  pruneFinishedJobs,
} from './jobs.repository.ts';

const T0 = 1_700_000_000_000;
const LEASE = 60_000;

let t: TestContext;
let database: Database;

// One database per file (creating one per test is slow on PostgreSQL); every test starts with no rows.
beforeAll(async () => {
  t = await createTestContext();
  database = t.ctx.database;
});
afterAll(() => t.close());
beforeEach(async () => {
  await database.db.deleteFrom('jobs').execute();
});

function claim(owner: string, now: number, limit = 10, queue = 'q') {
  return claimJobs(database.db, database.dialect, { queue, owner, leaseMs: LEASE, limit, now });
}

async function enqueue(runAt = T0, opts: { queue?: string; uniqueKey?: string } = {}): Promise<number> {
  const id = await enqueueJob(
    database.db,
    { queue: opts.queue ?? 'q', payload: { n: 1 }, runAt, uniqueKey: opts.uniqueKey },
    T0,
  );
  if (id === null) throw new Error('enqueue returned null');
  return id;
}

describe('enqueue and claim', () => {
  it('claims a due row once, as running with one attempt and a lease of now plus the lease time', async () => {
    const id = await enqueue();
    const first = await claim('A', T0 + 5);
    const second = await claim('B', T0 + 6);
    expect(first.map((r) => r.id)).toEqual([id]);
    expect(second).toEqual([]);
    const row = await findJob(database.db, id);
    expect(row).toMatchObject({
      state: 'running',
      attempts: 1,
      lease_owner: 'A',
      lease_until: T0 + 5 + LEASE,
    });
  });

  it('does not claim a row whose run_at is still in the future', async () => {
    await enqueue(T0 + 1000);
    expect(await claim('A', T0 + 999)).toEqual([]);
    expect(await claim('A', T0 + 1000)).toHaveLength(1);
  });

  it('claims only rows of the asked queue', async () => {
    await enqueue(T0, { queue: 'other' });
    expect(await claim('A', T0)).toEqual([]);
  });

  it('claims no more rows than the limit, oldest run_at first', async () => {
    const late = await enqueue(T0 + 2);
    const early = await enqueue(T0 + 1);
    await enqueue(T0 + 3);
    const rows = await claim('A', T0 + 10, 2);
    expect(rows.map((r) => r.id).sort((a, b) => a - b)).toEqual([early, late].sort((a, b) => a - b));
  });

  it('returns null when a row with the same unique key already exists', async () => {
    const first = await enqueueJob(database.db, { queue: 'q', payload: 1, uniqueKey: 'k1' }, T0);
    const second = await enqueueJob(database.db, { queue: 'q', payload: 2, uniqueKey: 'k1' }, T0);
    expect(first).toEqual(expect.any(Number));
    expect(second).toBeNull();
    const count = await database.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);
  });

  it('leaves a transaction usable after enqueueing a duplicate unique key in it', async () => {
    await enqueueJob(database.db, { queue: 'q', payload: 1, uniqueKey: 'k1' }, T0);
    const ids = await database.db.transaction().execute(async (trx) => {
      const dup = await enqueueJob(trx, { queue: 'q', payload: 2, uniqueKey: 'k1' }, T0);
      const other = await enqueueJob(trx, { queue: 'q', payload: 3, uniqueKey: 'k2' }, T0);
      return { dup, other };
    });
    expect(ids.dup).toBeNull();
    expect(ids.other).toEqual(expect.any(Number));
  });
});

describe('lease expiry and fencing', () => {
  it('lets another owner claim a running row whose lease has expired', async () => {
    const id = await enqueue();
    await claim('A', T0);
    expect(await claim('B', T0 + LEASE - 1)).toEqual([]);
    const stolen = await claim('B', T0 + LEASE + 1);
    expect(stolen.map((r) => ({ id: r.id, owner: r.lease_owner, attempts: r.attempts }))).toEqual([
      { id, owner: 'B', attempts: 2 },
    ]);
  });

  it('refuses completion by the owner whose lease was taken over', async () => {
    const id = await enqueue();
    await claim('A', T0);
    await claim('B', T0 + LEASE + 1);
    expect(await completeJob(database.db, id, 'A', T0 + LEASE + 2)).toBe(false);
    expect(await findJob(database.db, id)).toMatchObject({ state: 'running', lease_owner: 'B' });
  });

  it('refuses failure and lease extension by the owner whose lease was taken over', async () => {
    const id = await enqueue();
    await claim('A', T0);
    await claim('B', T0 + LEASE + 1);
    expect(await failJob(database.db, id, 'A', 'boom', T0 + 99_999, T0 + LEASE + 2)).toBe(false);
    expect(await extendLease(database.db, id, 'A', T0 + 10 * LEASE)).toBe(false);
    expect(await findJob(database.db, id)).toMatchObject({
      state: 'running',
      lease_owner: 'B',
      lease_until: T0 + LEASE + 1 + LEASE,
    });
  });

  it('completes a row for the owner that holds its lease', async () => {
    const id = await enqueue();
    await claim('A', T0);
    expect(await completeJob(database.db, id, 'A', T0 + 7)).toBe(true);
    expect(await findJob(database.db, id)).toMatchObject({
      state: 'done',
      finished_at: T0 + 7,
      lease_until: null,
    });
  });

  it('keeps a row away from other claimers for as long as its lease is extended', async () => {
    const id = await enqueue();
    await claim('A', T0);
    expect(await extendLease(database.db, id, 'A', T0 + 3 * LEASE)).toBe(true);
    expect(await claim('B', T0 + 2 * LEASE)).toEqual([]);
  });
});

describe('failing a row', () => {
  it('puts a failed row back in the queue at the retry time with the error recorded', async () => {
    const id = await enqueue();
    await claim('A', T0);
    expect(await failJob(database.db, id, 'A', 'smtp 451', T0 + 30_000, T0 + 1)).toBe(true);
    expect(await findJob(database.db, id)).toMatchObject({
      state: 'queued',
      run_at: T0 + 30_000,
      last_error: 'smtp 451',
      lease_owner: null,
      lease_until: null,
      attempts: 1,
    });
    expect(await claim('B', T0 + 29_999)).toEqual([]);
    expect(await claim('B', T0 + 30_000)).toHaveLength(1);
  });

  it('marks a row failed for good when there is no retry time', async () => {
    const id = await enqueue();
    await claim('A', T0);
    await failJob(database.db, id, 'A', 'mailbox unknown', null, T0 + 1);
    expect(await findJob(database.db, id)).toMatchObject({
      state: 'failed',
      finished_at: T0 + 1,
      last_error: 'mailbox unknown',
    });
    expect(await claim('B', T0 + 10 * LEASE)).toEqual([]);
  });
});

describe('pruning finished rows', () => {
  it('removes only done and failed rows that finished before the cutoff', async () => {
    const doneOld = await enqueue();
    const failedOld = await enqueue();
    const doneNew = await enqueue();
    const queued = await enqueue(T0 + 1e9);
    const running = await enqueue();
    await claim('A', T0, 3);
    await completeJob(database.db, doneOld, 'A', T0 + 10);
    await failJob(database.db, failedOld, 'A', 'x', null, T0 + 10);
    await completeJob(database.db, doneNew, 'A', T0 + 1000);
    await claim('B', T0 + 2);
    expect((await findJob(database.db, running))?.state).toBe('running');

    const removed = await pruneFinishedJobs(database.db, T0 + 500);

    expect(removed).toBe(2);
    const left = await database.db.selectFrom('jobs').select('id').orderBy('id').execute();
    expect(left.map((r) => r.id)).toEqual([doneNew, queued, running]);
  });

  it('never removes queued or running rows, however old', async () => {
    const queued = await enqueue(T0 + 1e9);
    const running = await enqueue();
    await claim('A', T0);
    expect(await pruneFinishedJobs(database.db, T0 + 1e12)).toBe(0);
    const left = await database.db.selectFrom('jobs').select('id').orderBy('id').execute();
    expect(left.map((r) => r.id)).toEqual([queued, running]);
  });
});

describe('enqueueing many rows', () => {
  const rowsOf = (queue: string) =>
    database.db
      .selectFrom('jobs')
      .select(['payload', 'state', 'attempts', 'run_at', 'unique_key'])
      .where('queue', '=', queue)
      .orderBy('id')
      .execute();

  it('queues a list of rows in one call, past the size of one statement, each due now and queued', async () => {
    const jobs = Array.from({ length: 1203 }, (_, n) => ({ queue: 'many', payload: { n } }));
    await enqueueJobs(database.db, jobs, T0);
    const rows = await rowsOf('many');
    expect(rows).toHaveLength(1203);
    expect(rows.map((r) => (JSON.parse(r.payload) as { n: number }).n)).toEqual(jobs.map((j) => j.payload.n));
    expect(
      rows.every(
        (r) => r.state === 'queued' && r.attempts === 0 && Number(r.run_at) === T0 && r.unique_key === null,
      ),
    ).toBe(true);
  });

  it('queues one row per id a query selects, with the id in a JSON payload under the given key', async () => {
    const sources = [
      await enqueue(T0, { queue: 'src' }),
      await enqueue(T0, { queue: 'src' }),
      await enqueue(T0, { queue: 'src' }),
    ];
    const ids = database.db
      .selectFrom('jobs')
      .select('id')
      .where('queue', '=', 'src')
      .where('id', '>', sources[0]!);
    const count = await enqueueEach(
      database.db,
      database.dialect,
      { queue: 'each', key: 'sourceId', ids },
      T0 + 7,
    );
    expect(count).toBe(2);
    const rows = await rowsOf('each');
    expect(rows.map((r) => JSON.parse(r.payload) as unknown)).toEqual([
      { sourceId: sources[1] },
      { sourceId: sources[2] },
    ]);
    expect(rows.every((r) => r.state === 'queued' && r.attempts === 0 && Number(r.run_at) === T0 + 7)).toBe(
      true,
    );
    const claimed = await claim('A', T0 + 7, 10, 'each');
    expect(claimed.map((r) => (JSON.parse(r.payload) as { sourceId: number }).sourceId)).toEqual(
      sources.slice(1),
    );
  });

  it('queues nothing for a query that selects no id', async () => {
    const ids = database.db.selectFrom('jobs').select('id').where('queue', '=', 'none');
    expect(
      await enqueueEach(database.db, database.dialect, { queue: 'each', key: 'sourceId', ids }, T0),
    ).toBe(0);
    expect(await rowsOf('each')).toEqual([]);
  });
});
