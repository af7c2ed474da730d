/** The export queue of the worker role: one work row per bulk job; a job that fails for good is marked failed. */
import type { AppContext } from '../../context.ts';
import type { QueueSpec } from '../../jobs/worker.ts';
import { PermanentJobError } from '../../jobs/retry.ts';
import { failExport, runExport } from './exports.service.ts';

const jobIdOf = (data: unknown) => (data as { jobId?: unknown } | null)?.jobId;

/** Runs export jobs, one at a time per process. */
export function exportQueue(ctx: AppContext): QueueSpec {
  return {
    concurrency: 1,
    leaseMs: 120_000,
    handler: async (job) => {
      const id = jobIdOf(job.data);
      if (typeof id !== 'number') throw new PermanentJobError('export work row without a jobId');
      await runExport(ctx, id);
    },
    onFailed: async (job, error) => {
      const id = jobIdOf(job.data);
      if (typeof id === 'number') await failExport(ctx, id, error);
    },
  };
}
