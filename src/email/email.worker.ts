/**
 * The background work of transactional email: scheduled messages coming due, and the retention of message content. Its
 * delivery lane is a mail kind's.
 */
import type { BackgroundWork } from '../jobs/jobs.worker.ts';
import { contentRetentionTask } from './delivery.service.ts';
import { SCHEDULED_QUEUE } from './queues.ts';
import { scheduleQueue } from './schedule.queue.ts';

/** The schedule queue and the content retention task. */
export const emailWork: BackgroundWork = {
  queues: (ctx) => ({ [SCHEDULED_QUEUE]: scheduleQueue(ctx) }),
  tasks: (ctx) => [contentRetentionTask(ctx)],
};
