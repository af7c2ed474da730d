/**
 * Expanding a send: the audience (the list's subscribed members who joined before the send froze it, minus everyone
 * unsubscribed) becomes one delivery row per subscriber, each with its work row, in batches ordered by subscriber id.
 * Each batch commits with the send's cursor, so a crash resumes after the last committed batch and the unique key on
 * (send, subscriber) keeps every subscriber to one delivery. Memory stays flat: rows go from table to table inside the
 * database, never through this process. A work row expands a slice of batches and hands over to a successor row
 * committed with its last batch, so no single work row runs long.
 */
import type { AppContext } from '../../context.ts';
import type { Pace, QueueSpec } from '../../jobs/worker.ts';
import { PermanentJobError } from '../../jobs/retry.ts';
import { enqueueJob } from '../../jobs/jobs.repository.ts';
import { pipelineMetrics } from '../../http/pipeline-metrics.ts';
import { findSendById, freezeSend } from './sends.repository.ts';
import {
  finishIfSettled,
  lockSendState,
  MARKETING_DELIVERY_QUEUE,
} from '../deliveries/deliveries.service.ts';
import {
  advanceExpansion,
  expandBatch,
  insertExtraDeliveries,
  markExpanded,
  nextBatchBound,
} from './expansion.repository.ts';
import type { SendContent } from '../deliveries/content.ts';
import { currentFilters, filterSql } from '../segments/segments.service.ts';
import type { Filters } from '../segments/filters.ts';

/** The queue of expansion work rows. */
export const EXPAND_QUEUE = 'marketing.expand';

/** The unique key of an expansion work row: one per send and starting point. */
export const expandJobKey = (sendId: number, from: number) => `campaign.expand:${sendId}:${from}`;

/** Tuning of the expansion (tests use small batches). */
export interface ExpansionOptions {
  /**
   * Subscribers per batch (one transaction). Small enough that a batch holds the embedded database's writer (and, with
   * SQLite, the event loop) for a few milliseconds, so accepts of transactional mail slip in between batches.
   */
  batchSize?: number;
  /** How long one work row keeps expanding before it hands over to a successor. */
  sliceMs?: number;
  /**
   * Awaited between batches: yields the loop to waiting requests and, when the loop lags, waits for at most as long as
   * the last batch took, so expansion takes at most about half of a busy loop and never stalls.
   */
  pace?: Pace;
  now?: () => number;
}

/** The expansion queue of the worker role. */
export function expansionQueue(ctx: AppContext, opts: ExpansionOptions = {}): QueueSpec {
  return {
    concurrency: 2,
    handler: async (job, pace) => {
      const sendId = (job.data as { sendId?: unknown } | null)?.sendId;
      if (typeof sendId !== 'number') throw new PermanentJobError('expansion work row without a sendId');
      await expandSlice(ctx, sendId, { pace, ...opts });
    },
  };
}

/** Expands batches of one send for up to a slice of time; returns how many deliveries it created. */
export async function expandSlice(
  ctx: AppContext,
  sendId: number,
  opts: ExpansionOptions = {},
): Promise<number> {
  const now = opts.now ?? Date.now;
  const batchSize = opts.batchSize ?? 500;
  const deadline = now() + (opts.sliceMs ?? 2000);
  const { db, dialect } = ctx.database;
  const start = await findSendById(db, sendId);
  if (!start) return 0;
  // The audience is frozen when expansion first starts: a scheduled send at its time, an immediate one at once.
  // The extra recipients' deliveries are written in the same transaction, so a cancelled schedule mails no one.
  if (start.frozen_at === null) {
    const at = now();
    const filters =
      start.dynamic_list_id === null
        ? undefined
        : await currentFilters(ctx, start.customer_id, start.dynamic_list_id);
    const extras = (JSON.parse(start.content) as SendContent).recipientEmails ?? [];
    const started = await db.transaction().execute(async (trx) => {
      if (!(await freezeSend(trx, sendId, at, filters))) return false;
      await insertExtraDeliveries(trx, start, extras, at);
      return true;
    });
    if (!started) return 0;
    countAccepted(extras.length);
    ctx.wake(MARKETING_DELIVERY_QUEUE);
  }
  let created = 0;
  let lastBatchMs = 0;
  for (;;) {
    if (lastBatchMs > 0) await opts.pace?.(lastBatchMs);
    const batchStarted = performance.now();
    const step = await db.transaction().execute(async (trx) => {
      if ((await lockSendState(trx, dialect, sendId)) !== 'expanding') return { done: true, added: 0 };
      const send = (await findSendById(trx, sendId))!;
      const at = now();
      const cursor = Number(send.expand_cursor);
      // A dynamic list narrows the audience to the subscribers its filters match, as they stood when it froze.
      const segment =
        send.dynamic_filters === null
          ? undefined
          : filterSql(
              JSON.parse(send.dynamic_filters) as Filters,
              Number(send.customer_id),
              Number(send.frozen_at),
            );
      const bound =
        send.subscription_list_id === null
          ? null
          : await nextBatchBound(trx, send.subscription_list_id, cursor, batchSize, segment);
      const added =
        send.subscription_list_id === null
          ? 0
          : await expandBatch(trx, dialect, send, cursor, bound, at, segment);
      await advanceExpansion(trx, sendId, send.campaign_mailing_id, bound ?? cursor, added, at);
      if (bound === null) {
        await markExpanded(trx, sendId, at);
        await finishIfSettled(trx, sendId, at);
        return { done: true, added };
      }
      if (at >= deadline) {
        await enqueueJob(
          trx,
          { queue: EXPAND_QUEUE, payload: { sendId }, uniqueKey: expandJobKey(sendId, bound) },
          at,
        );
        return { done: true, added };
      }
      return { done: false, added };
    });
    lastBatchMs = performance.now() - batchStarted;
    created += step.added;
    countAccepted(step.added);
    if (step.added > 0) ctx.wake(MARKETING_DELIVERY_QUEUE);
    if (step.done) break;
  }
  ctx.wake(EXPAND_QUEUE);
  return created;
}

/** Counts deliveries a send queued, once their transaction committed, as accepted on the marketing lane. */
function countAccepted(deliveries: number): void {
  if (deliveries > 0) pipelineMetrics.accepted.inc({ lane: 'marketing' }, deliveries);
}
