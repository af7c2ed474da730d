/** The background work of transactional email: the retention of message content. Its delivery lane is a mail kind's. */
import type { BackgroundWork } from '../jobs/jobs.worker.ts';
import { contentRetentionTask } from './delivery.service.ts';

/** The content retention task. */
export const emailWork: BackgroundWork = {
  tasks: (ctx) => [contentRetentionTask(ctx)],
};
