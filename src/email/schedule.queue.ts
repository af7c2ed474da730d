/** The schedule queue of the worker role: one work row per (scheduled message, revision), run when it comes due. */
import type { AppContext } from '../context.ts';
import type { QueueSpec } from '../jobs/worker.ts';
import { PermanentJobError } from '../jobs/retry.ts';
import { sendDue } from './schedule.service.ts';

/** Hands due scheduled messages to the send pipeline; running a row twice sends nothing twice. */
export function scheduleQueue(ctx: AppContext): QueueSpec {
  return {
    handler: async (job) => {
      const { id, revision } = (job.data ?? {}) as { id?: unknown; revision?: unknown };
      if (typeof id !== 'string' || typeof revision !== 'number')
        throw new PermanentJobError('schedule work row without an id and revision');
      await sendDue(ctx, id, revision);
    },
  };
}
