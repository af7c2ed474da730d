/** The worker end to end against a real database: claiming, running, retrying, failing, lanes, leases and stopping. */
import { describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { waitFor } from '../test/wait.ts';
import { watchUnsynced } from '../test/worker.ts';
import { findJob } from './jobs.repository.ts';
import type { LoopPacer } from './loop-pacer.ts';
import { PermanentJobError } from './retry.ts';
import { gate, workerTestBed } from './worker.test-support.ts';

const { ctx, startWorker, untilDone, enqueue, rowsIn } = workerTestBed();

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

  it('claims the rows of a busy lane a quarter of its slots at a time, not one each time a handler ends', async () => {
    // Records how many rows each claim statement took: only a claim answers with whole work rows.
    const claims: number[] = [];
    const database = watchUnsynced(ctx().database, {
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
      const r = await findJob(ctx().database.db, id);
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
      const r = await findJob(ctx().database.db, id);
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

  it('runs fewer handlers at once while API requests share the loop, and all its slots once they stop', async () => {
    let contended = true;
    const pacer: LoopPacer = {
      pace: async () => undefined,
      lagMs: () => 0,
      noteRequest: () => undefined,
      contended: () => contended,
      stop: () => undefined,
    };
    let held = gate();
    let active = 0;
    for (let i = 0; i < 20; i++) await enqueue('mail', i);
    const worker = startWorker(
      {
        mail: {
          concurrency: 8,
          contendedConcurrency: 2,
          handler: async () => {
            active++;
            try {
              await held.promise;
            } finally {
              active--;
            }
          },
        },
      },
      { pacer },
    );
    // Reaches `n` handlers running and stays there while the worker polls a few times.
    const settlesAt = async (n: number) => {
      await waitFor(async () => active === n, 5000, 10, `${n} running`);
      await sleep(100);
      expect(active).toBe(n);
    };

    await settlesAt(2);
    contended = false;
    worker.nudge('mail');
    await settlesAt(8);
    // Requests come in again while eight run: as those end, only two start.
    contended = true;
    const running = held;
    held = gate();
    running.open();
    await settlesAt(2);
    contended = false;
    held.open();
    await waitFor(async () => (await rowsIn('done')).length === 20, 5000, 10, 'all rows done');
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
      // The lease is renewed every third of it: 1 s leaves a renewal 600 ms late on a loaded machine still in time.
      mail: {
        leaseMs: 1_000,
        handler: async () => {
          runs++;
          await sleep(3_000);
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
    expect((await findJob(ctx().database.db, id))?.state).toBe('done');
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
    // Lets the handler go after a while in any case, so a stop() that waits for it fails below instead of hanging.
    const valve = setTimeout(() => release.open(), 10_000);
    let released = false;
    void release.promise.then(() => (released = true));

    await worker.stop(100);

    expect(released).toBe(false);
    clearTimeout(valve);
    expect((await findJob(ctx().database.db, id))?.state).toBe('running');
    release.open();
    await waitFor(async () => (await findJob(ctx().database.db, id))?.state === 'done', 5000);
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
