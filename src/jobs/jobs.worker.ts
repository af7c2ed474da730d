/** The background work of the jobs table itself: finished work rows are removed after the retention period. */
import type { AppContext } from '../context.ts';
import type { QueueSpec } from './worker.ts';
import type { PeriodicTask } from './scheduler.ts';
import { pruneFinishedJobs } from './jobs.repository.ts';

const DAY_MS = 86_400_000;

/**
 * What one feature registers with the worker role: its queues (built by the worker role, given options such as DNS
 * replacements) and its periodic tasks (run by the scheduler leader).
 */
export interface BackgroundWork<Options = object> {
  queues?(ctx: AppContext, opts: Options): Record<string, QueueSpec>;
  /** The names `queues` gives, where building the queues would open pools or threads. */
  queueNames?(ctx: AppContext): string[];
  tasks?(ctx: AppContext): PeriodicTask[];
}

/** The retention of finished work rows. */
export const jobsWork: BackgroundWork = {
  tasks: (ctx) => [
    {
      name: 'jobs.retention',
      everyMs: 3_600_000,
      run: async (now) => {
        const removed = await pruneFinishedJobs(ctx.database.db, now - ctx.config.jobRetentionDays * DAY_MS);
        if (removed > 0) ctx.log.info({ removed }, 'finished work rows removed by retention');
      },
    },
  ],
};
