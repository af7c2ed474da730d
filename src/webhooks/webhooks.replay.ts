/**
 * Replay: posting past events to an endpoint again, by time range and/or event ids, in batches of one transaction each.
 * Finished deliveries are put back in line under their Sealpost-Event-Id; events without a delivery to the endpoint get
 * one; each message's deliveries keep their order through the outbox chain.
 */
import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { AppContext } from '../context.ts';
import type { DB } from '../db/types.ts';
import { AppError } from '../errors/app-error.ts';
import { record, type ChangeBy } from '../audit/audit.service.ts';
import { emailEventsOf, webhookEventOf } from './events.ts';
import { releaseNext } from './webhooks.outbox.ts';
import { ownEndpoint } from './webhooks.service.ts';
import {
  deliveriesOfEvents,
  eventsForReplay,
  insertDelivery,
  requeueDeliveries,
} from './deliveries.repository.ts';

/** What a replay takes: a time range, event ids, or both; `after_event_id` continues a truncated replay. */
export interface ReplayInput {
  since?: string | null;
  until?: string | null;
  event_ids?: number[] | null;
  after_event_id?: number | null;
}

/** The outcome of a replay. */
export interface ReplayResult {
  /** Deliveries put back in line (or made for the first time). */
  replayed: number;
  /** Events whose delivery to this endpoint was still pending, left as they were. */
  already_pending: number;
  /** The last event looked at; pass it as after_event_id to continue when truncated. */
  last_event_id: number | null;
  /** True when the replay stopped at its limit of events and more may match. */
  truncated: boolean;
}

const REPLAY_BATCH = 500;
/** Most events one replay request covers; continue with after_event_id. */
export const REPLAY_LIMIT = 10_000;

function parseTime(field: string, value: string): number {
  const t = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(t))
    throw new AppError('request.invalid', `${field} must be an ISO 8601 time such as 2026-01-31T09:00:00Z`, {
      details: [{ field, message: 'must be an ISO 8601 time' }],
    });
  return t;
}

/**
 * Posts past events to an endpoint again: those of its subscribed kinds in the time range and/or with the given ids.
 * A delivery that finished is put back in line under the same Sealpost-Event-Id; an event that never had a delivery to
 * this endpoint (it happened before the endpoint existed) gets one; a delivery still pending is left alone. Each
 * message's deliveries stay in event order. Covers at most REPLAY_LIMIT events per call. Recorded in the audit trail as
 * asked `by`, with what was asked and how many deliveries were put back in line.
 */
export async function replayEvents(
  ctx: AppContext,
  customerId: number,
  id: string,
  input: ReplayInput,
  by: ChangeBy,
): Promise<ReplayResult> {
  const endpoint = await ownEndpoint(ctx, customerId, id);
  if (endpoint.active !== 1 || endpoint.disabled_at !== null)
    throw new AppError(
      'webhook.not_active',
      'this endpoint is switched off or disabled; re-enable it with PATCH {"active": true} first',
    );
  const since = input.since ? parseTime('since', input.since) : undefined;
  const until = input.until ? parseTime('until', input.until) : undefined;
  const eventIds = input.event_ids && input.event_ids.length > 0 ? input.event_ids : undefined;
  if (since === undefined && eventIds === undefined)
    throw new AppError('request.invalid', 'give since (an ISO 8601 time) or event_ids', {
      details: [{ field: 'since', message: 'is required without event_ids' }],
    });
  const out: ReplayResult = { replayed: 0, already_pending: 0, last_event_id: null, truncated: false };
  let afterId = input.after_event_id ?? undefined;
  let seen = 0;
  for (;;) {
    const limit = Math.min(REPLAY_BATCH, REPLAY_LIMIT - seen);
    const events = await eventsForReplay(ctx.database.db, {
      customerId,
      emailEvents: emailEventsOf(endpoint.events.split(',')),
      since,
      until,
      afterId,
      eventIds,
      limit,
    });
    if (events.length === 0) break;
    await ctx.database.db.transaction().execute((trx) => replayBatch(trx, id, customerId, events, out));
    seen += events.length;
    afterId = events[events.length - 1]!.id;
    out.last_event_id = afterId;
    if (events.length < limit) break;
    if (seen >= REPLAY_LIMIT) {
      out.truncated = true;
      break;
    }
  }
  await record(ctx.database.db, {
    accountId: customerId,
    actor: by.actor,
    action: 'webhook.replay',
    target: `webhook:${id}`,
    ip: by.ip,
    detail: {
      since: input.since ?? null,
      until: input.until ?? null,
      event_ids: eventIds ?? null,
      replayed: out.replayed,
      already_pending: out.already_pending,
      truncated: out.truncated,
    },
  });
  return out;
}

type ReplayEvent = { id: number; event: string; message_id: string };

async function replayBatch(
  trx: Transaction<DB>,
  endpointId: string,
  customerId: number,
  events: ReplayEvent[],
  out: ReplayResult,
): Promise<void> {
  const now = Date.now();
  const existing = new Map(
    (
      await deliveriesOfEvents(
        trx,
        endpointId,
        events.map((e) => e.id),
      )
    ).map((d) => [Number(d.event_id), d]),
  );
  const finished = [...existing.values()]
    .filter((d) => d.state === 'delivered' || d.state === 'failed')
    .map((d) => d.id);
  await requeueDeliveries(trx, finished, now);
  out.replayed += finished.length;
  out.already_pending += existing.size - finished.length;
  for (const e of events) {
    if (existing.has(e.id)) continue;
    const made = await insertDelivery(trx, {
      endpoint_id: endpointId,
      customer_id: customerId,
      event_id: e.id,
      event_name: webhookEventOf(e.event)!,
      message_id: e.message_id,
      uid: randomUUID(),
      state: 'waiting',
      dispatch_seq: 0,
      created_at: now,
      updated_at: now,
    });
    if (made !== null) out.replayed++;
  }
  for (const messageId of new Set(events.map((e) => e.message_id)))
    await releaseNext(trx, endpointId, messageId, now);
}
