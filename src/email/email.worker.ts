/** The background work of transactional email: the delivery lanes and the retention of message content. */
import type { BackgroundWork } from '../jobs/jobs.worker.ts';
import { contentRetentionTask, deliveryQueues, type DeliveryOptions } from './delivery.service.ts';

export type { DeliveryOptions };

/** The delivery queues and the content retention task. */
export const emailWork: BackgroundWork<DeliveryOptions> = {
  queues: deliveryQueues,
  tasks: (ctx) => [contentRetentionTask(ctx)],
};
