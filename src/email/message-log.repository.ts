/**
 * SQL of the message log: a keyset-paged search over an account's messages (newest first, by created_at then id) and a
 * message's events. Every filter is served by an index: recipient by message_recipients(customer_id, address,
 * message_id), subject by messages(customer_id, subject_hash), the rest by messages(customer_id, created_at). Nothing
 * counts all rows.
 */
import type { Queryable } from '../db/types.ts';
import type { RecipientRow } from './messages.repository.ts';

/** What the log may be searched by; every field is optional. */
export interface LogFilter {
  customerId: number;
  recipient?: string;
  trackingId?: string;
  subjectHash?: string;
  status?: RecipientRow['status'];
  /** Inclusive lower bound, ms. */
  from?: number;
  /** Exclusive upper bound, ms. */
  to?: number;
  /** The last row of the previous page. */
  after?: { createdAt: number; id: string };
  limit: number;
}

const COLUMNS = [
  'm.id',
  'm.from_addr',
  'm.source',
  'm.lane',
  'm.recipient_count',
  'm.pending_count',
  'm.total_opens',
  'm.total_clicks',
  'm.created_at',
] as const;

/**
 * One page of messages matching the filter, newest first (without their sealed content). A search by recipient starts
 * from the recipient index and joins the messages (a cross join keeps SQLite from scanning every message of the account
 * instead); the others walk messages(customer_id, created_at) backwards.
 */
export async function searchMessages(db: Queryable, f: LogFilter) {
  const addresses = f.recipient ? [...new Set([f.recipient, f.recipient.toLowerCase()])] : [];
  let q = f.recipient
    ? db
        .selectFrom('message_recipients as r')
        .crossJoin('messages as m')
        .whereRef('m.id', '=', 'r.message_id')
        .where('r.customer_id', '=', f.customerId)
        .where('r.address', 'in', addresses)
        .$if(f.status !== undefined, (w) => w.where('r.status', '=', f.status!))
        .select(COLUMNS)
        .distinct()
    : db
        .selectFrom('messages as m')
        .select(COLUMNS)
        .$if(f.status !== undefined, (w) =>
          w.where((eb) =>
            eb.exists(
              eb
                .selectFrom('message_recipients as s')
                .select('s.id')
                .whereRef('s.message_id', '=', 'm.id')
                .where('s.status', '=', f.status!),
            ),
          ),
        );
  q = q.where('m.customer_id', '=', f.customerId);
  if (f.trackingId) q = q.where('m.id', '=', f.trackingId);
  if (f.subjectHash) q = q.where('m.subject_hash', '=', f.subjectHash);
  if (f.from !== undefined) q = q.where('m.created_at', '>=', f.from);
  if (f.to !== undefined) q = q.where('m.created_at', '<', f.to);
  if (f.after) {
    const { createdAt, id } = f.after;
    q = q.where((eb) =>
      eb.or([
        eb('m.created_at', '<', createdAt),
        eb.and([eb('m.created_at', '=', createdAt), eb('m.id', '<', id)]),
      ]),
    );
  }
  return q.orderBy('m.created_at', 'desc').orderBy('m.id', 'desc').limit(f.limit).execute();
}

/** The recipients of some messages (address and state), for the log's rows. */
export async function recipientsOf(db: Queryable, messageIds: string[]) {
  if (messageIds.length === 0) return [];
  return db
    .selectFrom('message_recipients')
    .select([
      'id',
      'message_id',
      'address',
      'status',
      'delivery_status',
      'attempts',
      'delivered_at',
      'open_count',
    ])
    .where('message_id', 'in', messageIds)
    .orderBy('id')
    .execute();
}

/** The events of one message, oldest first. */
export async function eventsOf(db: Queryable, messageId: string) {
  return db
    .selectFrom('email_events')
    .select(['id', 'recipient_id', 'event', 'data', 'created_at'])
    .where('message_id', '=', messageId)
    .orderBy('id')
    .execute();
}
