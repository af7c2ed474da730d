/** The background work of every feature: which queues the worker role runs and which periodic tasks the scheduler leader runs. */
import type { AppContext } from '../context.ts';
import type { QueueSpec } from '../jobs/worker.ts';
import type { PeriodicTask } from '../jobs/scheduler.ts';
import { pruneFinishedJobs } from '../jobs/jobs.repository.ts';

const DAY_MS = 86_400_000;

/** Queue name → handler and lane settings. */
export function queueHandlers(_ctx: AppContext): Record<string, QueueSpec> {
  return {};
}

/** Tasks the scheduler leader runs periodically. */
export function periodicTasks(ctx: AppContext): PeriodicTask[] {
  return [
    {
      name: 'jobs.retention',
      everyMs: 3_600_000,
      run: async (now) => {
        const removed = await pruneFinishedJobs(ctx.database.db, now - ctx.config.jobRetentionDays * DAY_MS);
        if (removed > 0) ctx.log.info({ removed }, 'finished work rows removed by retention');
      },
    },
  ];
}
