/** SQL for reading the capture store: the raw messages the capture transport kept instead of sending them. */
import type { Queryable } from '../db/types.ts';

/** A captured message with its recipient's address. */
export type CapturedRow = Awaited<ReturnType<typeof listCaptured>>[number];

const columns = [
  'c.id',
  'c.customer_id',
  'c.message_id',
  'c.recipient_id',
  'c.envelope_from',
  'c.envelope_to',
  'c.raw',
  'c.created_at',
  'r.address as recipient',
] as const;

/** An account's captured messages, newest first, optionally of one message only. */
export async function listCaptured(
  db: Queryable,
  customerId: number,
  opts: { messageId?: string; limit: number },
) {
  let q = db
    .selectFrom('captured_messages as c')
    .leftJoin('message_recipients as r', 'r.id', 'c.recipient_id')
    .select(columns)
    .where('c.customer_id', '=', customerId);
  if (opts.messageId !== undefined) q = q.where('c.message_id', '=', opts.messageId);
  return q.orderBy('c.id', 'desc').limit(opts.limit).execute();
}

/** One captured message by id, of any account (the command line is administrative). */
export async function findCaptured(db: Queryable, id: number) {
  return db
    .selectFrom('captured_messages as c')
    .leftJoin('message_recipients as r', 'r.id', 'c.recipient_id')
    .select(columns)
    .where('c.id', '=', id)
    .executeTakeFirst();
}
