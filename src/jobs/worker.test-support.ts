/** A test bed for the worker's tests: one database per file, emptied of work rows before each test, and its helpers. */
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { createTestContext, type TestContext } from '../test/harness.ts';
import { waitFor } from '../test/wait.ts';
import { enqueueJob, findJob, type JobRow } from './jobs.repository.ts';
import { createWorker, type QueueSpec, type Worker, type WorkerOptions } from './worker.ts';

/** What a worker test uses; `ctx()` is valid once the file's tests run. */
export interface WorkerTestBed {
  ctx(): TestContext['ctx'];
  /** Starts a worker over `queues`, polling every 20 ms; stopped after the test. */
  startWorker(queues: Record<string, QueueSpec>, opts?: Partial<WorkerOptions>): Worker;
  /** The work row `id` once it is done. */
  untilDone(id: number): Promise<JobRow>;
  enqueue(queue: string, payload: unknown): Promise<number>;
  rowsIn(state: JobRow['state']): Promise<JobRow[]>;
}

/** Registers the file's hooks (call it at the top level of a test file). */
export function workerTestBed(): WorkerTestBed {
  let t: TestContext;
  let workers: Worker[] = [];
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
  return {
    ctx: () => t.ctx,
    startWorker(queues, opts = {}) {
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
    },
    untilDone: (id) =>
      waitFor(async () => {
        const r = await findJob(t.ctx.database.db, id);
        return r?.state === 'done' ? r : undefined;
      }, 5000),
    async enqueue(queue, payload) {
      const id = await enqueueJob(t.ctx.database.db, { queue, payload });
      if (id === null) throw new Error('enqueue returned null');
      return id;
    },
    rowsIn: (state) =>
      t.ctx.database.db.selectFrom('jobs').selectAll().where('state', '=', state).orderBy('id').execute(),
  };
}

/** A promise with its resolve function, for holding a handler until the test lets it go. */
export function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}
