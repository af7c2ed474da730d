/** The background work of every feature: which queues the worker role runs and which periodic tasks the scheduler leader runs. */
import type { AppContext } from '../context.ts';
import type { QueueSpec } from '../jobs/worker.ts';
import type { PeriodicTask } from '../jobs/scheduler.ts';
import { jobsWork, type BackgroundWork } from '../jobs/jobs.worker.ts';
import type { DeliveryOptions } from '../delivery/delivery.worker.ts';
import { emailWork } from '../email/email.worker.ts';
import { webhookWork, type WebhookOptions } from '../webhooks/webhooks.worker.ts';
import { formsWork } from '../forms/forms.worker.ts';
import { marketingWork, respondentHandOver } from '../marketing/marketing.worker.ts';
import { usersWork } from '../users/users.worker.ts';
import { deliveryLanes } from './mail-kinds.ts';

/** What the background work may be given besides the context (tests replace DNS here). */
export type BackgroundOptions = DeliveryOptions & WebhookOptions;

/** Every feature's background work, in registration order. */
const WORK: BackgroundWork<BackgroundOptions>[] = [
  jobsWork,
  deliveryLanes,
  emailWork,
  webhookWork,
  formsWork(respondentHandOver),
  marketingWork,
  usersWork,
];

/** Queue name → handler and lane settings. */
export function queueHandlers(ctx: AppContext, opts: BackgroundOptions = {}): Record<string, QueueSpec> {
  return Object.assign({}, ...WORK.map((w) => w.queues?.(ctx, opts) ?? {})) as Record<string, QueueSpec>;
}

/** The name of every queue, without building its handler. */
export function queueNames(ctx: AppContext): string[] {
  return WORK.flatMap((w) => w.queueNames?.(ctx) ?? Object.keys(w.queues?.(ctx, {}) ?? {}));
}

/** Tasks the scheduler leader runs periodically. */
export function periodicTasks(ctx: AppContext): PeriodicTask[] {
  return WORK.flatMap((w) => w.tasks?.(ctx) ?? []);
}
