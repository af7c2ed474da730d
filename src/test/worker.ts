/** A real worker for tests: over the queues the test chooses, with configuration overrides, polling fast and woken by in-process sends. */
import type { Config } from '../config/schema.ts';
import type { AppContext } from '../context.ts';
import { createWorker, type QueueSpec, type Worker } from '../jobs/worker.ts';
import type { TestApp } from './harness.ts';

/** Starts a worker over `queues(ctx)`, where ctx is the test's context with `overrides` applied; the caller stops it. */
export function startTestWorker(
  t: TestApp,
  overrides: Partial<Config>,
  queues: (ctx: AppContext) => Record<string, QueueSpec>,
  pollMs = 25,
): Worker {
  const ctx: AppContext = { ...t.ctx, config: { ...t.ctx.config, ...overrides } };
  const worker = createWorker({
    database: ctx.database,
    log: ctx.log,
    queues: queues(ctx),
    pollMs,
    leaseMs: ctx.config.jobLeaseMs,
  });
  t.ctx.wake = (queue) => worker.nudge(queue);
  worker.start();
  return worker;
}
