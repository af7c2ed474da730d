/**
 * Scheduled transactional messages. Scheduling checks the message as a send would, seals it, and writes it with a work
 * row due at its time; a reschedule raises the revision and writes a new work row, so the old one finds nothing to do.
 * When a row comes due, the message is submitted under its scheduled id (its sourceTrackingId) in one transaction with
 * the claim that marks it sent, so it enters the delivery pipeline once however many workers run the row.
 */
import type { AppContext } from '../context.ts';
import type { Principal } from '../accounts/keys.service.ts';
import { AppError } from '../errors/app-error.ts';
import { CATALOGUE, type ErrorCode } from '../errors/catalogue.ts';
import { enqueueJob } from '../jobs/jobs.repository.ts';
import { parseZonedTimestamp } from '../mail/dates.ts';
import { newMessageId } from '../mail/message-ids.ts';
import type { Queryable } from '../db/types.ts';
import {
  normalizeMessage,
  trackingOptions,
  type NormalizedMessage,
  type TrackingOptions,
} from './message-input.ts';
import { checkRecipientCap, submitClaimed, verifiedFromDomains } from './submit.ts';
import { SCHEDULED_QUEUE } from './queues.ts';
import type { RescheduleBody, ScheduleBody, ScheduledMessage } from './email.schemas.ts';
import {
  cancelScheduledRow,
  findScheduled,
  findScheduledById,
  insertScheduled,
  moveScheduled,
  settleScheduled,
  type ScheduledRow,
} from './schedule.repository.ts';

/** How far ahead a message may be scheduled: 30 days (see docs/decisions.md). */
export const SCHEDULE_HORIZON_MS = 30 * 86_400_000;

/** What a scheduled row keeps sealed until it is sent. */
interface Held {
  message: NormalizedMessage;
  tracking: TrackingOptions;
}

const aad = (id: string) => `scheduled:${id}`;
const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

const STATE_TEXT = {
  scheduled: 'Message scheduled',
  sent: 'Message sent',
  cancelled: 'Message cancelled',
} as const;

/** A row as the routes answer it. */
function viewOf(row: ScheduledRow): ScheduledMessage {
  const code = row.error_code as ErrorCode | null;
  return {
    sourceTrackingId: row.id,
    state: row.state,
    scheduledAt: iso(row.scheduled_at)!,
    data:
      row.state === 'failed'
        ? `Message not sent: ${code && code in CATALOGUE ? CATALOGUE[code].title : 'refused'}`
        : STATE_TEXT[row.state],
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
    sentAt: iso(row.sent_at),
    cancelledAt: iso(row.cancelled_at),
    errorCode: row.error_code,
  };
}

/** Epoch milliseconds of `value`: an RFC 3339 date-time with a zone, in the future and within the horizon. */
export function parseScheduledAt(value: unknown, field: string, now: number): number {
  const bad = (problem: string) =>
    new AppError('email.schedule_time_invalid', `${field} ${problem}`, {
      details: [{ field, message: problem }],
    });
  const example = 'an RFC 3339 date-time with a time zone, e.g. 2026-05-01T15:00:00Z';
  if (typeof value !== 'string' || value.trim() === '') throw bad(`is required: ${example}`);
  const ms = parseZonedTimestamp(value);
  if (Number.isNaN(ms)) throw bad(`must be ${example}`);
  if (ms <= now) throw bad('must be in the future');
  if (ms > now + SCHEDULE_HORIZON_MS) throw bad('must be at most 30 days ahead');
  return ms;
}

/** The work row that sends revision `revision` of message `id` at `runAt`. */
function enqueueDue(db: Queryable, id: string, revision: number, runAt: number, now: number) {
  return enqueueJob(
    db,
    {
      queue: SCHEDULED_QUEUE,
      payload: { id, revision },
      runAt,
      uniqueKey: `email.scheduled:${id}:${revision}`,
    },
    now,
  );
}

/** POST /schedule: checks the message as a send would, then holds it, sealed, until `scheduled_at`. */
export async function scheduleMessage(
  ctx: AppContext,
  principal: Principal,
  body: ScheduleBody,
): Promise<ScheduledMessage> {
  const now = Date.now();
  const scheduledAt = parseScheduledAt(body.data.scheduled_at, 'data.scheduled_at', now);
  const held: Held = { message: normalizeMessage(body.data.message), tracking: trackingOptions(body.data) };
  checkRecipientCap(ctx.config.maxRecipientsPerMessage, [held.message]);
  await verifiedFromDomains(ctx, principal, [held.message]);
  const id = newMessageId(now);
  const row: ScheduledRow = {
    id,
    customer_id: principal.customerId,
    key_domain: principal.domain,
    state: 'scheduled',
    scheduled_at: scheduledAt,
    revision: 0,
    content: ctx.sealer.seal(JSON.stringify(held), aad(id)),
    error_code: null,
    created_at: now,
    updated_at: now,
    sent_at: null,
    cancelled_at: null,
  };
  await ctx.database.db.transaction().execute(async (trx) => {
    await insertScheduled(trx, row);
    await enqueueDue(trx, id, 0, scheduledAt, now);
  });
  return viewOf(row);
}

/** The account's scheduled message, or 404 naming the id asked for. */
async function requireScheduled(db: Queryable, customerId: number, id: string): Promise<ScheduledRow> {
  const row = await findScheduled(db, customerId, id);
  if (!row)
    throw new AppError('email.scheduled_not_found', `no scheduled message ${id}`, {
      extra: { sourceTrackingId: id },
    });
  return row;
}

/** 409 for a change to a message that is no longer scheduled. */
function closed(row: ScheduledRow, change: string): AppError {
  return new AppError(
    'email.schedule_closed',
    `the message is ${row.state}; only a scheduled message can be ${change}`,
    { extra: { sourceTrackingId: row.id, state: row.state } },
  );
}

/** GET /schedule/<id> */
export async function getScheduled(
  ctx: AppContext,
  customerId: number,
  id: string,
): Promise<ScheduledMessage> {
  return viewOf(await requireScheduled(ctx.database.reader, customerId, id));
}

/** PATCH /schedule/<id>: a new time for a message still scheduled. */
export async function reschedule(
  ctx: AppContext,
  customerId: number,
  id: string,
  body: RescheduleBody,
): Promise<ScheduledMessage> {
  const now = Date.now();
  const db = ctx.database.db;
  const before = await requireScheduled(db, customerId, id);
  const scheduledAt = parseScheduledAt(body.scheduled_at, 'scheduled_at', now);
  const after = await db.transaction().execute(async (trx) => {
    if (!(await moveScheduled(trx, customerId, id, scheduledAt, now))) return undefined;
    const row = (await findScheduled(trx, customerId, id))!;
    await enqueueDue(trx, id, row.revision, scheduledAt, now);
    return row;
  });
  if (!after) throw closed((await findScheduled(db, customerId, id)) ?? before, 'rescheduled');
  return viewOf(after);
}

/** POST /schedule/<id>/cancel: a cancelled message is never sent; its content is dropped at once. */
export async function cancelScheduled(
  ctx: AppContext,
  customerId: number,
  id: string,
): Promise<ScheduledMessage> {
  const db = ctx.database.db;
  const before = await requireScheduled(db, customerId, id);
  const done = await cancelScheduledRow(db, customerId, id, Date.now());
  const row = (await findScheduled(db, customerId, id)) ?? before;
  if (!done) throw closed(row, 'cancelled');
  return viewOf(row);
}

/**
 * Runs a work row of the schedule queue: sends revision `revision` of message `id` unless it was rescheduled,
 * cancelled or already sent. A message the checks now refuse (its domain no longer verified, say) is marked failed.
 */
export async function sendDue(ctx: AppContext, id: string, revision: number): Promise<void> {
  const row = await findScheduledById(ctx.database.db, id);
  if (!row || row.state !== 'scheduled' || row.revision !== revision || row.content === null) return;
  const held = JSON.parse(ctx.sealer.openText(row.content, aad(id))) as Held;
  const who = { customerId: row.customer_id, domain: row.key_domain };
  try {
    await submitClaimed(ctx, who, held.message, { id, tracking: held.tracking }, (trx, now) =>
      settleScheduled(trx, id, revision, { state: 'sent', sent_at: now, updated_at: now }),
    );
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    const failed = { state: 'failed' as const, error_code: err.code, updated_at: Date.now() };
    if (await settleScheduled(ctx.database.db, id, revision, failed))
      ctx.log.warn({ sourceTrackingId: id, code: err.code }, 'scheduled message refused when due');
  }
}
