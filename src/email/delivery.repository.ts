/** SQL the delivery engine's store needs: a recipient's delivery, its outcome, its secure link, captured copies, and content retention. */
import { sql, type Insertable } from 'kysely';
import type { CapturedMessagesTable, Queryable } from '../db/types.ts';
import { precompile } from '../db/precompiled.ts';

// The queries of every delivery attempt are compiled once (see db/precompiled.ts).
const findDeliveryQuery = precompile((db, v: { recipientId: number }) =>
  db
    .selectFrom('message_recipients as r')
    .innerJoin('messages as m', 'm.id', 'r.message_id')
    .leftJoin('domains as d', 'd.id', 'm.domain_id')
    .select([
      'r.id',
      'r.message_id',
      'r.customer_id',
      'r.address',
      'r.status',
      'm.header_message_id',
      'm.from_addr',
      'm.created_at',
      'm.allow_non_tls',
      'm.force_secure',
      'm.open_tracking',
      'm.link_tracking',
      'm.pending_count',
      sql<number | boolean>`m.content is null`.as('content_purged'),
      'd.id as domain_id',
      'd.name as domain_name',
      'd.dkim_selector',
      'd.dkim_private_key',
      'd.dkim2_selector',
      'd.dkim2_private_key',
    ])
    .where('r.id', '=', v.recipientId),
);

/** A recipient with the message and sending-domain fields delivery needs, and whether the content was purged (not the content). */
export async function findDelivery(db: Queryable, recipientId: number) {
  return (await findDeliveryQuery(db, { recipientId })).rows[0];
}

const findContentQuery = precompile((db, v: { messageId: string }) =>
  db.selectFrom('messages').select('content').where('id', '=', v.messageId),
);

/** The sealed content of a message; null when purged. */
export async function findContent(db: Queryable, messageId: string): Promise<string | null> {
  return (await findContentQuery(db, { messageId })).rows[0]?.content ?? null;
}

/** Stores the hash and expiry of the secure link of a recipient not yet final (a settled recipient keeps the link it was sent). */
export async function setSecureLink(
  db: Queryable,
  recipientId: number,
  tokenHash: string,
  expiresAt: number,
  now: number,
): Promise<void> {
  await db
    .updateTable('message_recipients')
    .set({ secure_token_hash: tokenHash, secure_expires_at: expiresAt, updated_at: now })
    .where('id', '=', recipientId)
    .where('status', 'in', ['queued', 'deferred'])
    .execute();
}

/** The recipient whose secure link token hashes to `tokenHash`, with the message fields the secure page shows. */
export async function findBySecureTokenHash(db: Queryable, tokenHash: string) {
  return db
    .selectFrom('message_recipients as r')
    .innerJoin('messages as m', 'm.id', 'r.message_id')
    .select([
      'r.id as recipient_id',
      'r.address',
      'r.secure_expires_at',
      'm.id as message_id',
      'm.created_at',
      'm.content',
      'm.content_purged_at',
      'm.customer_id',
    ])
    .where('r.secure_token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** The recipient columns an attempt's outcome sets. */
export interface RecipientOutcome {
  status: 'deferred' | 'delivered' | 'failed';
  delivery_status: string;
  delivered_at: number | null;
  attempts: number;
  last_response: string;
  via: string;
  tls: number | null;
}

const settleRecipientQuery = precompile((db, v: RecipientOutcome & { recipientId: number; now: number }) =>
  db
    .updateTable('message_recipients')
    .set({
      status: v.status,
      delivery_status: v.delivery_status,
      delivered_at: v.delivered_at,
      attempts: v.attempts,
      last_response: v.last_response,
      via: v.via,
      tls: v.tls,
      updated_at: v.now,
    })
    .where('id', '=', v.recipientId)
    .where('status', 'in', ['queued', 'deferred']),
);

/** Applies an outcome to a recipient that is not final yet; returns false (and changes nothing) when it already was. */
export async function settleRecipient(
  db: Queryable,
  recipientId: number,
  outcome: RecipientOutcome,
  now: number,
): Promise<boolean> {
  const res = await settleRecipientQuery(db, { ...outcome, recipientId, now });
  return Number(res.numAffectedRows ?? 0) > 0;
}

const countFinalQuery = precompile((db, v: { messageId: string; now: number }) =>
  db
    .updateTable('messages')
    .set((eb) => ({
      pending_count: eb('pending_count', '-', 1),
      finished_at: eb.case().when('pending_count', '<=', 1).then(v.now).else(eb.ref('finished_at')).end(),
    }))
    .where('id', '=', v.messageId)
    .where('pending_count', '>', 0),
);

/** Counts one recipient of a message as final; the message is finished when none is left. */
export async function countFinalRecipient(db: Queryable, messageId: string, now: number): Promise<void> {
  await countFinalQuery(db, { messageId, now });
}

/** Keeps a captured copy of one delivery, replacing an earlier copy of the same delivery (a retried attempt). */
export async function replaceCaptured(db: Queryable, row: Insertable<CapturedMessagesTable>): Promise<void> {
  await db
    .deleteFrom('captured_messages')
    .where('message_id', '=', row.message_id)
    .where('recipient_id', '=', row.recipient_id)
    .execute();
  await db.insertInto('captured_messages').values(row).execute();
}

/** Purges the content of messages finished before `before`, and their captured copies; returns how many of each. */
export async function purgeFinishedContent(
  db: Queryable,
  before: number,
  now: number,
): Promise<{ messages: number; captured: number }> {
  const finished = db.selectFrom('messages').select('id').where('finished_at', '<', before);
  const captured = await db
    .updateTable('captured_messages')
    .set({ raw: null })
    .where('raw', 'is not', null)
    .where('message_id', 'in', finished)
    .executeTakeFirst();
  const messages = await db
    .updateTable('messages')
    .set({ content: null, content_purged_at: now })
    .where('content', 'is not', null)
    .where('finished_at', '<', before)
    .executeTakeFirst();
  return { messages: Number(messages.numUpdatedRows), captured: Number(captured.numUpdatedRows) };
}

/** A recipient as a report that came back after delivery needs it. */
export async function findReportedRecipient(db: Queryable, recipientId: number) {
  return db
    .selectFrom('message_recipients')
    .select(['id', 'message_id', 'customer_id', 'address', 'status'])
    .where('id', '=', recipientId)
    .executeTakeFirst();
}

/**
 * Applies a report that came back after delivery to a recipient: a bounce fails it (unless it already failed), a delay
 * marks it only while it is delivered. Returns false, changing nothing, when the recipient is not in that state.
 */
export async function reportOnRecipient(
  db: Queryable,
  recipientId: number,
  change: 'fail' | 'delay',
  set: { delivery_status: string; last_response: string },
  now: number,
): Promise<boolean> {
  const res = await db
    .updateTable('message_recipients')
    .set(
      change === 'fail'
        ? { ...set, status: 'failed', delivered_at: null, updated_at: now }
        : { ...set, updated_at: now },
    )
    .where('id', '=', recipientId)
    .where('status', change === 'fail' ? '!=' : '=', change === 'fail' ? 'failed' : 'delivered')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}
