/**
 * SQL of expanding a campaign send's audience: the next batch's bound, the batch's delivery rows and their work rows
 * (and those of the send's extra recipients), and the send's cursor and counters as batches commit.
 */
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Dialect } from '../../db/connect.ts';
import { randomUuidSql } from '../../db/uuid-sql.ts';
import type { Queryable } from '../../db/types.ts';
import { enqueueEach } from '../../jobs/jobs.repository.ts';
import {
  bumpCampaign,
  enqueueDeliveries,
  MARKETING_DELIVERY_QUEUE,
} from '../deliveries/deliveries.service.ts';
import type { SendRow } from './sends.repository.ts';

/** The SQL condition a member `m` of list `listId` meets when it may receive campaigns (confirmed, or not asked). */
const confirmedOrNotAsked = (listId: number) =>
  sql`(m.confirmed_at is not null or (select l.double_opt_in from subscription_lists l where l.id = ${listId}) = 0)`;

/**
 * The upper bound of the next expansion batch: the `batch`-th member after `cursor`, or null when fewer remain. For a
 * send narrowed by a dynamic list (`segment`, its filters' condition over subscriber `s`) only members it matches count,
 * so a batch holds `batch` deliveries either way.
 */
export async function nextBatchBound(
  db: Queryable,
  listId: number,
  cursor: number,
  batch: number,
  segment?: RawBuilder<SqlBool>,
): Promise<number | null> {
  if (segment) {
    const { rows } = await sql<{
      subscriber_id: number;
    }>`select m.subscriber_id from subscription_list_members m
      join subscribers s on s.id = m.subscriber_id
      where m.list_id = ${listId} and m.subscriber_id > ${cursor} and ${segment}
      order by m.subscriber_id limit 1 offset ${batch - 1}`.execute(db);
    return rows[0] ? Number(rows[0].subscriber_id) : null;
  }
  const row = await db
    .selectFrom('subscription_list_members')
    .select('subscriber_id')
    .where('list_id', '=', listId)
    .where('subscriber_id', '>', cursor)
    .orderBy('subscriber_id')
    .limit(1)
    .offset(batch - 1)
    .executeTakeFirst();
  return row ? Number(row.subscriber_id) : null;
}

/**
 * Expands the members of a list with ids in (`cursor`, `bound`] into deliveries of the send, with one work row each:
 * members who joined before the audience was frozen, have an email address (phone-only subscribers are left out) and
 * are subscribed to the list and not unsubscribed globally. A
 * delivery that already exists is left alone (the unique key on send and subscriber). A send narrowed by a dynamic list
 * passes its filters' condition over subscriber `s` as `segment`. Returns how many were created.
 */
export async function expandBatch(
  db: Queryable,
  dialect: Dialect,
  send: Pick<SendRow, 'id' | 'customer_id' | 'campaign_mailing_id' | 'subscription_list_id' | 'frozen_at'>,
  cursor: number,
  bound: number | null,
  now: number,
  segment?: RawBuilder<SqlBool>,
): Promise<number> {
  const upper = bound === null ? sql`` : sql`and m.subscriber_id <= ${bound}`;
  // A dynamic list narrows the list to the subscribers its filters match, as they stood when the audience froze.
  const narrowed = segment
    ? sql`and s.created_at <= cast(${send.frozen_at} as bigint) and ${segment}`
    : sql``;
  const orIgnore = dialect === 'sqlite' ? sql`or ignore` : sql``;
  const onConflict = dialect === 'postgres' ? sql`on conflict do nothing` : sql``;
  const inserted = await sql<{ id: number }>`
    insert ${orIgnore} into marketing_deliveries
      (uuid, customer_id, send_id, campaign_mailing_id, subscriber_id, email, status, delivery_status, created_at, updated_at)
    select ${randomUuidSql(dialect)}, s.customer_id, cast(${send.id} as bigint), cast(${send.campaign_mailing_id} as bigint), s.id, s.email, 'queued', 'queued',
      cast(${now} as bigint), cast(${now} as bigint)
    from subscription_list_members m
    join subscribers s on s.id = m.subscriber_id
    where m.list_id = ${send.subscription_list_id} and m.subscriber_id > ${cursor} ${upper}
      and m.unsubscribed = 0 and s.unsubscribed = 0 and s.email <> '' and m.created_at <= cast(${send.frozen_at} as bigint) ${narrowed}
      and ${confirmedOrNotAsked(send.subscription_list_id!)}
    ${onConflict}`.execute(db);
  const count = Number(inserted.numAffectedRows ?? 0);
  if (count === 0) return 0;
  let ids = db
    .selectFrom('marketing_deliveries')
    .select('id')
    .where('send_id', '=', send.id)
    .where('subscriber_id', '>', cursor)
    .where('created_at', '=', now);
  if (bound !== null) ids = ids.where('subscriber_id', '<=', bound);
  await enqueueEach(db, dialect, { queue: MARKETING_DELIVERY_QUEUE, key: 'deliveryId', ids }, now);
  return count;
}

/**
 * A page of the members of a list a send started now would mail (subscribed to the list and overall, confirmed or not
 * asked), after subscriber id `cursor`, in id order: the same conditions as `expandBatch`.
 */
export async function reachableMembers(
  db: Queryable,
  listId: number,
  cursor: number,
  limit: number,
): Promise<{ id: number; email: string }[]> {
  const { rows } = await sql<{ id: number; email: string }>`
    select s.id, s.email from subscription_list_members m
    join subscribers s on s.id = m.subscriber_id
    where m.list_id = ${listId} and m.subscriber_id > ${cursor}
      and m.unsubscribed = 0 and s.unsubscribed = 0 and s.email <> '' and ${confirmedOrNotAsked(listId)}
    order by m.subscriber_id limit ${limit}`.execute(db);
  return rows.map((r) => ({ id: Number(r.id), email: r.email }));
}

/** Creates the untracked deliveries to a send's extra recipient addresses, with their work rows. */
export async function insertExtraDeliveries(
  db: Queryable,
  send: Pick<SendRow, 'id' | 'customer_id' | 'campaign_mailing_id'>,
  emails: string[],
  now: number,
): Promise<void> {
  for (const email of emails) {
    const row = await db
      .insertInto('marketing_deliveries')
      .values({
        customer_id: send.customer_id,
        send_id: send.id,
        campaign_mailing_id: send.campaign_mailing_id,
        drip_enrollment_id: null,
        drip_node_id: null,
        subscriber_id: null,
        email,
        status: 'queued',
        delivery_status: 'queued',
        header_message_id: null,
        last_response: null,
        via: null,
        tls: null,
        delivered_at: null,
        first_opened_at: null,
        unsubscribed_at: null,
        global_unsubscribed_at: null,
        secure_token_hash: null,
        secure_expires_at: null,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await enqueueDeliveries(db, [row.id], now);
  }
}

/** Records an expanded batch on the send: the new cursor and the audience and sent counters. */
export async function advanceExpansion(
  db: Queryable,
  sendId: number,
  mailingId: number,
  cursor: number,
  added: number,
  now: number,
): Promise<void> {
  await db
    .updateTable('campaign_mailing_sends')
    .set({ expand_cursor: cursor, audience_count: sql`audience_count + ${added}`, updated_at: now })
    .where('id', '=', sendId)
    .execute();
  await bumpCampaign(db, sendId, mailingId, { sent_count: added }, now);
}

/** Marks a send fully expanded: every delivery row exists, the send is sending until they settle. */
export async function markExpanded(db: Queryable, sendId: number, now: number): Promise<void> {
  await db
    .updateTable('campaign_mailing_sends')
    .set({ state: 'sending', expanded_at: now, updated_at: now })
    .where('id', '=', sendId)
    .execute();
}
