/** The worker end to end against a real database: claiming, running, retrying, failing, lanes, leases and stopping. */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { TableNode, UpdateQueryNode, type KyselyPlugin } from 'kysely';
import { createTestContext, type TestContext } from '../test/harness.ts';
import { waitFor } from '../test/wait.ts';
import { countingSettles, watchUnsynced } from '../test/worker.ts';
import { enqueueJob, findJob, type JobRow } from './jobs.repository.ts';
import { PermanentJobError } from './retry.ts';
import {
  createWorker,
  finishAllIn,
  type FinishIn,
  type QueueSpec,
  type Worker,
  type WorkerOptions,
} from './worker.ts';

let t: TestContext;
let workers: Worker[];

// One database per file (creating one per test is slow on PostgreSQL); every test starts with no rows.
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.ctx.database.db.deleteFrom('jobs').execute();
  workers = [];
});
afterEach(async () => {
  await Promise.all(workers.map((w) => w.stop(1000)));
});

function startWorker(queues: Record<string, QueueSpec>, opts: Partial<WorkerOptions> = {}): Worker {
  const worker = createWorker({
    database: t.ctx.database,
    log: t.ctx.log,
    queues,
    pollMs: 20,
    leaseMs: 30_000,
    ...opts,
  });
  workers.push(worker);
  worker.start();
  return worker;
}

/** The work row `id` once it is done. */
function untilDone(id: number): Promise<JobRow> {
  return waitFor(async () => {
    const r = await findJob(t.ctx.database.db, id);
    return r?.state === 'done' ? r : undefined;
  }, 5000);
}

async function enqueue(queue: string, payload: unknown): Promise<number> {
  const id = await enqueueJob(t.ctx.database.db, { queue, payload });
  if (id === null) throw new Error('enqueue returned null');
  return id;
}

async function rowsIn(state: JobRow['state']): Promise<JobRow[]> {
  return t.ctx.database.db.selectFrom('jobs').selectAll().where('state', '=', state).orderBy('id').execute();
}

/** A promise with its resolve function, for holding a handler until the test lets it go. */
function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

describe('createWorker', () => {
  it('runs every row enqueued after a nudge once and marks them all done', async () => {
    const seen: number[] = [];
    // A poll interval far beyond the wait bound: only the nudge can get the rows run in time.
    const worker = startWorker(
      { mail: { handler: async (job) => void seen.push(job.data as number), concurrency: 3 } },
      { pollMs: 60_000 },
    );
    await sleep(20); // let the loop's first, empty claim pass so that it sits idle when the rows arrive
    for (let i = 0; i < 25; i++) await enqueue('mail', i);
    worker.nudge('mail');

    await waitFor(async () => (await rowsIn('done')).length === 25, 5000, 10, 'all rows done');
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i));
  });

  it('marks rows whose handlers finish together done in one write', async () => {
    const watched = countingSettles(t.ctx.database);
    const held = gate();
    let started = 0;
    for (let i = 0; i < 10; i++) await enqueue('mail', i);
    startWorker(
      {
        mail: {
          concurrency: 10,
          handler: async () => {
            started++;
            await held.promise;
          },
        },
      },
      { database: watched.database },
    );
    await waitFor(() => started === 10, 5000, 10, 'all ten handlers running');
    held.open();

    await waitFor(async () => (await rowsIn('done')).length === 10, 5000, 10, 'all rows done');
    expect(watched.settles()).toBe(1);
  });

  it('writes nothing more for a row its handler finished in its own transaction', async () => {
    const { database } = t.ctx;
    const watched = countingSettles(database);
    const ids = [await enqueue('mail', 1), await enqueue('mail', 2)];
    startWorker(
      {
        mail: {
          handler: async (_job, _pace, finishIn) => {
            await database.db.transaction().execute((trx) => finishIn(trx));
          },
        },
      },
      { database: watched.database },
    );

    await waitFor(async () => (await rowsIn('done')).length === 2, 5000, 10, 'both rows done');
    expect((await rowsIn('done')).map((r) => r.id).sort()).toEqual(ids.sort());
    expect(watched.settles()).toBe(0);
  });

  it('ends the rows of handlers recorded in one transaction with one statement, and writes nothing more for them', async () => {
    const watched = countingSettles(t.ctx.database);
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) ids.push(await enqueue('mail', i));
    // The four handlers hand their rows to one shared write, as deliveries recorded in one group commit do.
    const handed: FinishIn[] = [];
    const written = gate();
    let jobUpdates = 0;
    const counting: KyselyPlugin = {
      transformQuery: ({ node }) => {
        if (UpdateQueryNode.is(node) && node.table && TableNode.is(node.table))
          if (node.table.table.identifier.name === 'jobs') jobUpdates++;
        return node;
      },
      transformResult: async ({ result }) => result,
    };
    startWorker(
      {
        mail: {
          concurrency: 4,
          handler: async (_job, _pace, finishIn) => {
            handed.push(finishIn);
            if (handed.length === 4) {
              await t.ctx.database.db
                .withPlugin(counting)
                .transaction()
                .execute((trx) => finishAllIn(trx, handed));
              for (const f of handed) f.ended();
              written.open();
            }
            await written.promise;
          },
        },
      },
      { database: watched.database },
    );

    await waitFor(async () => (await rowsIn('done')).length === 4, 5000, 10, 'all four rows done');
    expect((await rowsIn('done')).map((r) => r.id)).toEqual(ids);
    expect(jobUpdates).toBe(1);
    await sleep(50);
    expect(watched.settles()).toBe(0);
  });

  it('retries a row whose handler finished it in a transaction that rolled back', async () => {
    const id = await enqueue('mail', 'x');
    let calls = 0;
    startWorker({
      mail: {
        retrySchedule: [20],
        handler: async (_job, _pace, finishIn) => {
          calls++;
          await t.ctx.database.db.transaction().execute(async (trx) => {
            await finishIn(trx);
            if (calls === 1) throw new Error('the outcome could not be recorded');
          });
        },
      },
    });

    const row = await untilDone(id);
    expect({ calls, attempts: row.attempts }).toEqual({ calls: 2, attempts: 2 });
  });

  it('claims the rows of a busy lane a quarter of its slots at a time, not one each time a handler ends', async () => {
    // Records how many rows each claim statement took: only a claim answers with whole work rows.
    const claims: number[] = [];
    const database = watchUnsynced(t.ctx.database, {
      transformQuery: ({ node }) => node,
      transformResult: async ({ result }) => {
        const first = result.rows[0];
        if (first && 'payload' in first && 'lease_owner' in first) claims.push(result.rows.length);
        return result;
      },
    });
    for (let i = 0; i < 40; i++) await enqueue('mail', i);
    startWorker(
      // Handlers of different lengths, so they end one at a time.
      { mail: { concurrency: 8, handler: (job) => sleep(2 + ((job.data as number) % 5) * 4) } },
      { database },
    );

    await waitFor(async () => (await rowsIn('done')).length === 40, 5000, 10, 'all rows done');
    expect(claims.reduce((a, b) => a + b, 0)).toBe(40);
    // Every claim took at least two rows (a quarter of eight slots), except the one that took the last row.
    expect(claims.slice(0, -1).every((n) => n >= 2)).toBe(true);
    expect(claims[0]).toBe(8);
  });

  it('retries a handler that throws once and records the row done after two attempts', async () => {
    let calls = 0;
    const id = await enqueue('mail', 'x');
    startWorker({
      mail: {
        retrySchedule: [50],
        handler: async () => {
          calls++;
          if (calls === 1) throw new Error('temporary');
        },
      },
    });

    const row = await untilDone(id);
    expect({ calls, attempts: row.attempts, last_error: row.last_error }).toEqual({
      calls: 2,
      attempts: 2,
      last_error: null,
    });
  });

  it('waits the scheduled delay before retrying', async () => {
    const starts: number[] = [];
    await enqueue('mail', 'x');
    startWorker({
      mail: {
        retrySchedule: [300],
        handler: async () => {
          starts.push(Date.now());
          if (starts.length === 1) throw new Error('temporary');
        },
      },
    });

    await waitFor(() => starts.length === 2, 5000);
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(300);
  });

  it('marks the row failed after the last scheduled retry fails', async () => {
    const id = await enqueue('mail', 'x');
    startWorker({
      mail: {
        retrySchedule: [20, 20],
        handler: async () => {
          throw new Error('still broken');
        },
      },
    });

    const row = await waitFor(async () => {
      const r = await findJob(t.ctx.database.db, id);
      return r?.state === 'failed' ? r : undefined;
    }, 5000);
    expect({ attempts: row.attempts, last_error: row.last_error }).toEqual({
      attempts: 3,
      last_error: 'still broken',
    });
  });

  it('tells the queue once a row failed for good, after its last attempt or a permanent error, and not before', async () => {
    const failed: { payload: unknown; attempts: number; error: string }[] = [];
    let calls = 0;
    await enqueue('mail', { n: 1 });
    await enqueue('mail', { n: 2 });
    startWorker({
      mail: {
        retrySchedule: [20, 20],
        handler: async (job) => {
          calls++;
          if ((job.data as { n: number }).n === 2) throw new PermanentJobError('no such mailbox');
          throw new Error('still broken');
        },
        onFailed: async (job, error) => {
          failed.push({ payload: job.data, attempts: job.attempts, error });
        },
      },
    });
    await waitFor(async () => (await rowsIn('failed')).length === 2, 5000);
    await sleep(60);
    expect(calls).toBe(4);
    expect(failed.sort((x, y) => x.attempts - y.attempts)).toEqual([
      { payload: { n: 2 }, attempts: 1, error: 'no such mailbox' },
      { payload: { n: 1 }, attempts: 3, error: 'still broken' },
    ]);
  });

  it('fails the row at once when the handler throws PermanentJobError', async () => {
    const id = await enqueue('mail', 'x');
    startWorker({
      mail: {
        retrySchedule: [20, 20, 20],
        handler: async () => {
          throw new PermanentJobError('recipient rejected');
        },
      },
    });

    const row = await waitFor(async () => {
      const r = await findJob(t.ctx.database.db, id);
      return r?.state === 'failed' ? r : undefined;
    }, 5000);
    expect({ attempts: row.attempts, last_error: row.last_error }).toEqual({
      attempts: 1,
      last_error: 'recipient rejected',
    });
  });

  it('runs no more handlers of a queue at once than its concurrency', async () => {
    let active = 0;
    let most = 0;
    for (let i = 0; i < 12; i++) await enqueue('mail', i);
    startWorker({
      mail: {
        concurrency: 3,
        handler: async () => {
          most = Math.max(most, ++active);
          await sleep(15);
          active--;
        },
      },
    });

    await waitFor(async () => (await rowsIn('done')).length === 12, 5000);
    expect(most).toBe(3);
  });

  it('keeps working one queue while another queue is busy with slow rows', async () => {
    const slow = gate();
    await enqueue('campaign', 'big');
    startWorker({
      campaign: { concurrency: 1, handler: () => slow.promise },
      mail: { handler: async () => undefined },
    });
    await waitFor(async () => (await rowsIn('running')).length === 1, 5000);
    for (let i = 0; i < 5; i++) await enqueue('mail', i);

    await waitFor(async () => (await rowsIn('done')).length === 5, 5000);
    slow.open();
  });

  it('does not run a row a second time while its handler outlives the lease', async () => {
    let runs = 0;
    const id = await enqueue('mail', 'x');
    startWorker({
      mail: {
        leaseMs: 300,
        handler: async () => {
          runs++;
          await sleep(900);
        },
      },
    });

    const row = await untilDone(id);
    expect({ runs, attempts: row.attempts }).toEqual({ runs: 1, attempts: 1 });
  });

  it('waits in stop() for a running handler to finish and record its row', async () => {
    let finished = false;
    const started = gate();
    const id = await enqueue('mail', 'x');
    const worker = startWorker({
      mail: {
        handler: async () => {
          started.open();
          await sleep(200);
          finished = true;
        },
      },
    });
    await started.promise;

    await worker.stop(5000);

    expect(finished).toBe(true);
    expect((await findJob(t.ctx.database.db, id))?.state).toBe('done');
  });

  it('gives up waiting in stop() after its timeout and leaves the row to its lease', async () => {
    const started = gate();
    const release = gate();
    const id = await enqueue('mail', 'x');
    const worker = startWorker({
      mail: {
        handler: async () => {
          started.open();
          await release.promise;
        },
      },
    });
    await started.promise;

    const before = Date.now();
    await worker.stop(100);

    expect(Date.now() - before).toBeLessThan(2000);
    expect((await findJob(t.ctx.database.db, id))?.state).toBe('running');
    release.open();
    await waitFor(async () => (await findJob(t.ctx.database.db, id))?.state === 'done', 5000);
  });

  it('claims nothing after stop()', async () => {
    const seen: unknown[] = [];
    const worker = startWorker({ mail: { handler: async (job) => void seen.push(job.data) } });
    await worker.stop(1000);
    await enqueue('mail', 'late');
    worker.nudge('mail');
    await sleep(100);
    expect(seen).toEqual([]);
  });
});
