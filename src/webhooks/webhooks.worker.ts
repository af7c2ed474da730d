/**
 * The webhooks side of the worker role: the `webhooks` queue over one dispatcher, and the periodic tasks that keep the
 * delivery tables healthy (finishing deliveries whose work row ended without an outcome, releasing waiting deliveries
 * left behind, and removing finished deliveries past retention).
 */
import { pipelineMetrics } from '../http/pipeline-metrics.ts';
import type { AppContext } from '../context.ts';
import type { QueueSpec } from '../jobs/worker.ts';
import type { PeriodicTask } from '../jobs/scheduler.ts';
import type { BackgroundWork } from '../jobs/jobs.worker.ts';
import { createDispatcher, type Dispatcher } from './dispatcher.ts';
import { createPoster, type HttpPoster } from './http-post.ts';
import { systemLookup, type HostLookup } from './url-safety.ts';
import { WEBHOOK_QUEUE, releaseNext } from './webhooks.outbox.ts';
import {
  orphanedPending,
  pruneFinishedDeliveries,
  settleDelivery,
  staleWaiting,
} from './deliveries.repository.ts';

/** Fraction of each retry wait added at random, so endpoints that failed together do not retry in lockstep. */
export const WEBHOOK_RETRY_JITTER = 0.2;

const DAY_MS = 86_400_000;
/** How long a delivery must have been left alone before the sweep looks at it. */
const SWEEP_AFTER_MS = 10 * 60_000;
const SWEEP_BATCH = 500;

/** What the webhook queue may be given besides the context. */
export interface WebhookOptions {
  /** DNS for webhook targets (tests point names at addresses); node's resolver by default. */
  webhookLookup?: HostLookup;
}

/** The webhook queue and the sweeps of stale deliveries. */
export const webhookWork: BackgroundWork<WebhookOptions> = {
  queues: webhookQueues,
  queueNames: () => [WEBHOOK_QUEUE],
  tasks: webhookTasks,
};

/** A dispatcher over the context's configuration, with its own connection pools of `maxSockets` per host. */
export function webhookDispatcher(
  ctx: AppContext,
  lookup: HostLookup = systemLookup,
  maxSockets = ctx.config.webhookConcurrency,
): Dispatcher {
  const { config } = ctx;
  return createDispatcher({
    reader: ctx.database.reader,
    transact: (unit) => ctx.committer.run(unit),
    sealer: ctx.sealer,
    poster: countedPoster(
      createPoster({
        timeoutMs: config.webhookTimeoutMs,
        allowPrivate: config.webhookAllowPrivateTargets,
        lookup,
        maxSockets,
      }),
    ),
    retrySchedule: config.webhookRetrySchedule,
    disable: { failures: config.webhookDisableAfterFailures, hours: config.webhookDisableAfterHours },
    log: ctx.log,
  });
}

/** The `webhooks` queue: one dispatcher and its connection pools per worker. */
export function webhookQueues(ctx: AppContext, opts: WebhookOptions = {}): Record<string, QueueSpec> {
  const { config } = ctx;
  const dispatcher = webhookDispatcher(ctx, opts.webhookLookup);
  return {
    [WEBHOOK_QUEUE]: {
      handler: dispatcher.handle,
      concurrency: config.webhookConcurrency,
      retrySchedule: config.webhookRetrySchedule,
      jitter: WEBHOOK_RETRY_JITTER,
    },
  };
}

/** Finishes orphaned pending deliveries and releases waiting ones left behind; returns how many of each. */
export async function sweepDeliveries(
  ctx: AppContext,
  now = Date.now(),
): Promise<{ orphaned: number; released: number }> {
  const db = ctx.database.db;
  const before = now - SWEEP_AFTER_MS;
  const orphans = await orphanedPending(db, before, SWEEP_BATCH);
  for (const o of orphans)
    await db.transaction().execute(async (trx) => {
      const error = 'its work row ended without an outcome';
      if (await settleDelivery(trx, o.id, o.dispatch_seq, { state: 'failed', attempted: false, error, now }))
        await releaseNext(trx, o.endpoint_id, o.message_id, now);
    });
  const waiting = await staleWaiting(db, before, SWEEP_BATCH);
  for (const w of waiting)
    await db.transaction().execute((trx) => releaseNext(trx, w.endpoint_id, w.message_id, now));
  return { orphaned: orphans.length, released: waiting.length };
}

/** Periodic tasks: the sweep every ten minutes and retention of finished deliveries every hour. */
export function webhookTasks(ctx: AppContext): PeriodicTask[] {
  return [
    {
      name: 'webhooks.sweep',
      everyMs: SWEEP_AFTER_MS,
      run: async (now) => {
        const swept = await sweepDeliveries(ctx, now);
        if (swept.orphaned > 0)
          ctx.log.warn(swept, 'webhook deliveries without an outcome finished as failed');
      },
    },
    {
      name: 'webhooks.retention',
      everyMs: 3_600_000,
      run: async (now) => {
        const removed = await pruneFinishedDeliveries(
          ctx.database.db,
          now - ctx.config.jobRetentionDays * DAY_MS,
        );
        if (removed > 0) ctx.log.info({ removed }, 'finished webhook deliveries removed by retention');
      },
    },
  ];
}

/** The poster, with each POST counted by outcome (`success`, `http_error`, `network_error`, `refused`) in the pipeline metrics. */
function countedPoster(poster: HttpPoster): HttpPoster {
  return {
    ...poster,
    async post(url, headers, body) {
      const r = await poster.post(url, headers, body);
      const outcome =
        r.statusCode !== null && r.statusCode >= 200 && r.statusCode < 300
          ? 'success'
          : r.statusCode !== null
            ? 'http_error'
            : r.refused
              ? 'refused'
              : 'network_error';
      pipelineMetrics.webhookPosts.inc({ outcome });
      return r;
    },
  };
}
