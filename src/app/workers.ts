/** The background work of every feature: which queues the worker role runs and which periodic tasks the scheduler leader runs. */
import type { AppContext } from '../context.ts';
import type { QueueSpec } from '../jobs/worker.ts';
import type { PeriodicTask } from '../jobs/scheduler.ts';
import { pruneFinishedJobs } from '../jobs/jobs.repository.ts';
import { contentRetentionTask, deliveryQueues, type DeliveryOptions } from '../email/delivery.service.ts';
import { webhookQueues, webhookTasks, type WebhookOptions } from '../webhooks/webhooks.worker.ts';
import { formsQueues } from '../forms/forms.worker.ts';
import { dripQueues } from '../marketing/drips/drips.engine.ts';
import { marketingQueues } from '../marketing/campaigns/delivery.ts';
import { marketingRetentionTask } from '../marketing/campaigns/captured.ts';
import { dripTasks } from '../marketing/drips/drips.enroll.ts';

const DAY_MS = 86_400_000;

/** What the background work may be given besides the context (tests replace DNS here). */
export type BackgroundOptions = DeliveryOptions & WebhookOptions;

/** Queue name → handler and lane settings. */
export function queueHandlers(ctx: AppContext, opts: BackgroundOptions = {}): Record<string, QueueSpec> {
  return {
    ...deliveryQueues(ctx, opts),
    ...webhookQueues(ctx, opts),
    ...formsQueues(ctx),
    ...dripQueues(ctx),
    ...marketingQueues(ctx, opts),
  };
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
    contentRetentionTask(ctx),
    ...webhookTasks(ctx),
    ...dripTasks(ctx),
    marketingRetentionTask(ctx),
  ];
}
