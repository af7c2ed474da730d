/**
 * SQL of campaign sends: the send rows, expanding a send's audience into delivery rows and their work rows batch by
 * batch, the send's links, and the counters kept on sends and mailings.
 */
import { confirmedOrNotAsked } from '../optin/optin.repository.ts';
import { sql, type Insertable, type Selectable } from 'kysely';
import { filterSql, type Filters } from '../segments/filters.repository.ts';
import type { Dialect } from '../../db/connect.ts';
import { randomUuidSql } from '../../db/uuid-sql.ts';
import { precompile } from '../../db/precompiled.ts';
import type { CampaignMailingSendsTable, Queryable } from '../../db/types.ts';
import { enqueueEach } from '../../jobs/jobs.repository.ts';
import { enqueueDeliveries, MARKETING_DELIVERY_QUEUE } from './queue.repository.ts';

export type SendRow = Selectable<CampaignMailingSendsTable>;

/** Counter columns a send and its mailing share. */
export type CampaignCounter =
  | 'sent_count'
  | 'delivered_count'
  | 'viewed_count'
  | 'clicked_count'
  | 'bounced_count'
  | 'soft_bounced_count'
  | 'hard_bounced_count'
  | 'unsubscribed_count'
  | 'global_unsubscribed_count';

export async function insertSend(db: Queryable, row: Insertable<CampaignMailingSendsTable>): Promise<number> {
  const r = await db
    .insertInto('campaign_mailing_sends')
    .values(row)
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

export async function findSend(db: Queryable, customerId: number, id: number): Promise<SendRow | undefined> {
  return db
    .selectFrom('campaign_mailing_sends')
    .selectAll()
    .where('id', '=', id)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
}

export async function findSendById(db: Queryable, id: number): Promise<SendRow | undefined> {
  return db.selectFrom('campaign_mailing_sends').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findSendByJid(
  db: Queryable,
  customerId: number,
  jid: string,
): Promise<SendRow | undefined> {
  return db
    .selectFrom('campaign_mailing_sends')
    .selectAll()
    .where('jid', '=', jid)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
}

/** An account's sends still waiting for their time, soonest first. */
export async function scheduledSends(db: Queryable, customerId: number): Promise<SendRow[]> {
  return db
    .selectFrom('campaign_mailing_sends')
    .selectAll()
    .where('customer_id', '=', customerId)
    .where('state', '=', 'scheduled')
    .orderBy('send_at', 'asc')
    .orderBy('id', 'asc')
    .execute();
}

/** Moves a send from one of `from` to `to`; returns whether it moved. On PostgreSQL the row stays locked until commit. */
export async function moveSend(
  db: Queryable,
  id: number,
  from: readonly string[],
  to: string,
  now: number,
  extra: Partial<Pick<SendRow, 'frozen_at' | 'sent_at' | 'finished_at'>> = {},
): Promise<boolean> {
  const r = await db
    .updateTable('campaign_mailing_sends')
    .set({ state: to, updated_at: now, ...extra })
    .where('id', '=', id)
    .where('state', 'in', from)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Starts a scheduled or new send: freezes its audience at `at`. Returns false when it was already started or is no longer waiting. */
export async function freezeSend(
  db: Queryable,
  id: number,
  at: number,
  dynamicFilters?: string,
): Promise<boolean> {
  const r = await db
    .updateTable('campaign_mailing_sends')
    .set({
      state: 'expanding',
      frozen_at: at,
      sent_at: at,
      updated_at: at,
      ...(dynamicFilters !== undefined && { dynamic_filters: dynamicFilters }),
    })
    .where('id', '=', id)
    .where('state', 'in', ['scheduled', 'expanding'])
    .where('frozen_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

// The marketing gate reads it for every delivery of a send (see db/precompiled.ts).
const sendStateQuery = precompile((db, v: { id: number }) =>
  db.selectFrom('campaign_mailing_sends').select('state').where('id', '=', v.id),
);

/** The send's state, locking its row on PostgreSQL (unless `lock` is false) so that pause and resume wait for this transaction. */
export async function lockSendState(
  db: Queryable,
  dialect: Dialect,
  id: number,
  lock = true,
): Promise<string | undefined> {
  if (!(lock && dialect === 'postgres')) return (await sendStateQuery(db, { id })).rows[0]?.state;
  const row = await db
    .selectFrom('campaign_mailing_sends')
    .select('state')
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
  return row?.state;
}

/** Stores the tracked links of a send's HTML by position, their targets as given (sealed by the caller). */
export async function insertSendLinks(
  db: Queryable,
  sendId: number,
  links: { position: number; url: string }[],
): Promise<void> {
  for (let i = 0; i < links.length; i += 500)
    await db
      .insertInto('campaign_send_links')
      .values(
        links.slice(i, i + 500).map((l) => ({ send_id: sendId, html_id: l.position, target_url: l.url })),
      )
      .execute();
}

/** Adds to counters of a send (when there is one: drip emails have none) and of its mailing. */
export async function bumpCampaign(
  db: Queryable,
  sendId: number | null,
  mailingId: number,
  counters: Partial<Record<CampaignCounter, number>>,
  now: number,
): Promise<void> {
  if (!Object.values(counters).some((v) => v !== 0)) return;
  if (sendId !== null) await addToSend(db, sendId, counters, 0, now);
  await addToMailing(db, mailingId, counters);
}

/** The SET of an increment of each non-zero counter. */
function increments(counters: Partial<Record<string, number>>) {
  return Object.fromEntries(
    Object.entries(counters)
      .filter(([, by]) => by !== 0)
      .map(([col, by]) => [col, sql`${sql.ref(col)} + ${by}`]),
  );
}

/** Adds to a send's counters and to its count of settled deliveries, in one statement. */
export async function addToSend(
  db: Queryable,
  sendId: number,
  counters: Partial<Record<CampaignCounter, number>>,
  settled: number,
  now: number,
): Promise<void> {
  await db
    .updateTable('campaign_mailing_sends')
    .set({ ...increments({ ...counters, settled_count: settled }), updated_at: now })
    .where('id', '=', sendId)
    .execute();
}

/** Adds to a mailing's counters. */
export async function addToMailing(
  db: Queryable,
  mailingId: number,
  counters: Partial<Record<CampaignCounter, number>>,
): Promise<void> {
  const set = increments(counters);
  if (Object.keys(set).length > 0)
    await db.updateTable('campaign_mailings').set(set).where('id', '=', mailingId).execute();
}

/**
 * The upper bound of the next expansion batch: the `batch`-th member after `cursor`, or null when fewer remain. For a
 * send narrowed by a dynamic list only members its filters match count, so a batch holds `batch` deliveries either way.
 */
export async function nextBatchBound(
  db: Queryable,
  listId: number,
  cursor: number,
  batch: number,
  send?: Pick<SendRow, 'customer_id' | 'frozen_at' | 'dynamic_filters'>,
): Promise<number | null> {
  if (send && send.dynamic_filters !== null) {
    const filter = filterSql(
      JSON.parse(send.dynamic_filters) as Filters,
      Number(send.customer_id),
      Number(send.frozen_at),
    );
    const { rows } = await sql<{
      subscriber_id: number;
    }>`select m.subscriber_id from subscription_list_members m
      join subscribers s on s.id = m.subscriber_id
      where m.list_id = ${listId} and m.subscriber_id > ${cursor} and ${filter}
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
 * members who joined before the audience was frozen and are subscribed to the list and not unsubscribed globally. A
 * delivery that already exists is left alone (the unique key on send and subscriber). Returns how many were created.
 */
export async function expandBatch(
  db: Queryable,
  dialect: Dialect,
  send: Pick<
    SendRow,
    'id' | 'customer_id' | 'campaign_mailing_id' | 'subscription_list_id' | 'frozen_at' | 'dynamic_filters'
  >,
  cursor: number,
  bound: number | null,
  now: number,
): Promise<number> {
  const upper = bound === null ? sql`` : sql`and m.subscriber_id <= ${bound}`;
  // A dynamic list narrows the list to the subscribers its filters match, as they stood when the audience froze.
  const segment =
    send.dynamic_filters === null
      ? sql``
      : sql`and s.created_at <= cast(${send.frozen_at} as bigint) and ${filterSql(JSON.parse(send.dynamic_filters) as Filters, Number(send.customer_id), Number(send.frozen_at))}`;
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
      and m.unsubscribed = 0 and s.unsubscribed = 0 and m.created_at <= cast(${send.frozen_at} as bigint) ${segment}
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

/** Marks a send sent once it is fully expanded and every audience delivery settled. */
export async function finishIfSettled(db: Queryable, sendId: number, now: number): Promise<boolean> {
  const r = await db
    .updateTable('campaign_mailing_sends')
    .set({ state: 'sent', finished_at: now, updated_at: now })
    .where('id', '=', sendId)
    .where('state', '=', 'sending')
    .whereRef('settled_count', '>=', 'audience_count')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Parks the send's waiting deliveries (on pause) or queues them again with new work rows (on resume). */
export async function requeueParked(db: Queryable, sendId: number, now: number): Promise<number> {
  const rows = await db
    .updateTable('marketing_deliveries')
    .set({ status: 'queued', updated_at: now })
    .where('send_id', '=', sendId)
    .where('status', '=', 'paused')
    .returning('id')
    .execute();
  await enqueueDeliveries(
    db,
    rows.map((r) => r.id),
    now,
  );
  return rows.length;
}

/** The latest sends of one mailing, newest first. */
export async function sendsOfMailingRows(
  db: Queryable,
  customerId: number,
  mailingId: number,
  limit: number,
): Promise<SendRow[]> {
  return db
    .selectFrom('campaign_mailing_sends')
    .selectAll()
    .where('customer_id', '=', customerId)
    .where('campaign_mailing_id', '=', mailingId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** Marks a send fully expanded: every delivery row exists, the send is sending until they settle. */
export async function markExpanded(db: Queryable, sendId: number, now: number): Promise<void> {
  await db
    .updateTable('campaign_mailing_sends')
    .set({ state: 'sending', expanded_at: now, updated_at: now })
    .where('id', '=', sendId)
    .execute();
}

/** How many campaign sends are expanding or sending right now, across all accounts. */
export async function countSendsInProgress(db: Queryable): Promise<number> {
  const row = await db
    .selectFrom('campaign_mailing_sends')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('state', 'in', ['expanding', 'sending'])
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
