/**
 * SQL of scheduled messages. Every change of state is one conditional update (`where state = 'scheduled'`), so of a
 * due run, a reschedule and a cancel racing on the same row exactly one wins, on either database.
 */
import type { Insertable, Selectable } from 'kysely';
import type { Queryable, ScheduledMessagesTable } from '../db/types.ts';

/** A stored scheduled message. */
export type ScheduledRow = Selectable<ScheduledMessagesTable>;

/** Inserts a scheduled message. */
export async function insertScheduled(db: Queryable, row: Insertable<ScheduledMessagesTable>): Promise<void> {
  await db.insertInto('scheduled_messages').values(row).execute();
}

/** The account's scheduled message by id. */
export async function findScheduled(
  db: Queryable,
  customerId: number,
  id: string,
): Promise<ScheduledRow | undefined> {
  return db
    .selectFrom('scheduled_messages')
    .selectAll()
    .where('id', '=', id)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
}

/** A scheduled message by id alone, for the worker. */
export async function findScheduledById(db: Queryable, id: string): Promise<ScheduledRow | undefined> {
  return db.selectFrom('scheduled_messages').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Moves a still scheduled message to a new time and revision; false when it is no longer scheduled. */
export async function moveScheduled(
  db: Queryable,
  customerId: number,
  id: string,
  scheduledAt: number,
  now: number,
): Promise<boolean> {
  const res = await db
    .updateTable('scheduled_messages')
    .set((eb) => ({ scheduled_at: scheduledAt, revision: eb('revision', '+', 1), updated_at: now }))
    .where('id', '=', id)
    .where('customer_id', '=', customerId)
    .where('state', '=', 'scheduled')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Cancels a still scheduled message and drops its content; false when it is no longer scheduled. */
export async function cancelScheduledRow(
  db: Queryable,
  customerId: number,
  id: string,
  now: number,
): Promise<boolean> {
  const res = await db
    .updateTable('scheduled_messages')
    .set({ state: 'cancelled', content: null, cancelled_at: now, updated_at: now })
    .where('id', '=', id)
    .where('customer_id', '=', customerId)
    .where('state', '=', 'scheduled')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** How a due message ends: sent (the message row holds its content from here) or failed (with the catalogue code). */
export type Settlement =
  | { state: 'sent'; sent_at: number; updated_at: number }
  | { state: 'failed'; error_code: string; updated_at: number };

/**
 * Settles a due message and drops its content, if it is still scheduled at the revision its work row was made for (a
 * reschedule raises the revision, so the earlier row finds nothing). False when another run, a reschedule or a cancel
 * got there first; claiming it as sent in the transaction that writes the message is what makes the send once-only.
 */
export async function settleScheduled(
  db: Queryable,
  id: string,
  revision: number,
  settlement: Settlement,
): Promise<boolean> {
  const res = await db
    .updateTable('scheduled_messages')
    .set({ ...settlement, content: null })
    .where('id', '=', id)
    .where('state', '=', 'scheduled')
    .where('revision', '=', revision)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Removes sent, failed and cancelled scheduled messages last changed before `before`; returns how many. */
export async function pruneFinishedScheduled(db: Queryable, before: number): Promise<number> {
  const res = await db
    .deleteFrom('scheduled_messages')
    .where('state', '!=', 'scheduled')
    .where('updated_at', '<', before)
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}
