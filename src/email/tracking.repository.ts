/** SQL for open and click counting: counters on recipients, links and messages, and the events they produce. */
import type { Queryable } from '../db/types.ts';

/** The recipient a tracking token names, with what counting needs of its message. */
export async function findTrackedRecipient(db: Queryable, recipientId: number) {
  return db
    .selectFrom('message_recipients as r')
    .innerJoin('messages as m', 'm.id', 'r.message_id')
    .select(['r.id', 'r.message_id', 'r.customer_id', 'r.address', 'm.open_tracking'])
    .where('r.id', '=', recipientId)
    .executeTakeFirst();
}

/** The tracked link at `position` of a message. */
export async function findLink(db: Queryable, messageId: string, position: number) {
  return db
    .selectFrom('message_links')
    .select(['id', 'target_url'])
    .where('message_id', '=', messageId)
    .where('position', '=', position)
    .executeTakeFirst();
}

/** Counts one open of a recipient; returns the recipient's open count after it (1 means this was the first open). */
export async function countRecipientOpen(
  db: Queryable,
  recipientId: number,
  now: number,
): Promise<number | undefined> {
  const row = await db
    .updateTable('message_recipients')
    .set((eb) => ({
      open_count: eb('open_count', '+', 1),
      first_opened_at: eb.fn.coalesce('first_opened_at', eb.val(now)),
    }))
    .where('id', '=', recipientId)
    .returning('open_count')
    .executeTakeFirst();
  return row?.open_count;
}

/** Adds one to a message's total opens. */
export async function countMessageOpen(db: Queryable, messageId: string): Promise<void> {
  await db
    .updateTable('messages')
    .set((eb) => ({ total_opens: eb('total_opens', '+', 1) }))
    .where('id', '=', messageId)
    .execute();
}

/** Adds one to a link's clicks and to its message's total clicks. */
export async function countClick(db: Queryable, messageId: string, linkId: number): Promise<void> {
  await db
    .updateTable('message_links')
    .set((eb) => ({ click_count: eb('click_count', '+', 1) }))
    .where('id', '=', linkId)
    .execute();
  await db
    .updateTable('messages')
    .set((eb) => ({ total_clicks: eb('total_clicks', '+', 1) }))
    .where('id', '=', messageId)
    .execute();
}
