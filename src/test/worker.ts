/**
 * A real worker for tests: over the queues the test chooses, with configuration overrides, woken at once by in-process
 * sends. It polls every 250 ms, not faster: an idle poll of each queue is a write, and polling every 25 ms took a fifth
 * of the delivery tests' CPU.
 */
import type { KyselyPlugin } from 'kysely';
import type { Config } from '../config/schema.ts';
import type { AppContext } from '../context.ts';
import type { Database } from '../db/connect.ts';
import type { FinishIn } from '../jobs/finish.ts';
import { createWorker, type QueueSpec, type Worker } from '../jobs/worker.ts';
import type { TestApp } from './harness.ts';

/** Starts a worker over `queues(ctx)`, where ctx is the test's context with `overrides` applied; the caller stops it. */
export function startTestWorker(
  t: TestApp,
  overrides: Partial<Config>,
  queues: (ctx: AppContext) => Record<string, QueueSpec>,
  pollMs = 250,
  database: Database = t.ctx.database,
): Worker {
  const ctx: AppContext = { ...t.ctx, config: { ...t.ctx.config, ...overrides } };
  const worker = createWorker({
    database,
    log: ctx.log,
    queues: queues(ctx),
    pollMs,
    leaseMs: ctx.config.jobLeaseMs,
  });
  t.ctx.wake = (queue) => worker.nudge(queue);
  worker.start();
  return worker;
}

/** The database with `plugin` on every connection its unsynced writes run on (claims, lease changes, settling rows). */
export function watchUnsynced(database: Database, plugin: KyselyPlugin): Database {
  return {
    ...database,
    unsynced: (write) => database.unsynced((connection) => write(connection.withPlugin(plugin))),
  };
}

/**
 * The database with its unsynced writes watched: `settles()` counts the statements among them that end work rows
 * (only those set finished_at), which is how a worker marks rows done or failed outside a handler's transaction.
 */
export function countingSettles(database: Database): { database: Database; settles(): number } {
  let settles = 0;
  const watched = watchUnsynced(database, {
    transformQuery: ({ node }) => {
      if (node.kind === 'UpdateQueryNode' && JSON.stringify(node.updates).includes('"finished_at"'))
        settles++;
      return node;
    },
    transformResult: async ({ result }) => result,
  });
  return { database: watched, settles: () => settles };
}

/**
 * A handler's way to end its row, for calling a handler or a store without a worker: `used()` tells whether a
 * transaction ended the row (the finish was called, or its `ended()` was). With `failing`, the write that ends it
 * fails with that error (its clock throws; it is its worker's only row, so the write reads it).
 */
export function testFinish(jobId: number, failing?: Error): { finish: FinishIn; used(): boolean } {
  let used = false;
  const finish: FinishIn = Object.assign(
    async () => {
      if (failing) throw failing;
      used = true;
    },
    {
      jobId,
      owner: failing ? `test-failing-${jobId}` : 'test',
      now: () => {
        if (failing) throw failing;
        return Date.now();
      },
      ended: () => {
        used = true;
      },
    },
  );
  return { finish, used: () => used };
}
