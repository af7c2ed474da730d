/**
 * SQL of campaign sends: the send rows and their states, the send's links, and the counters kept on sends and
 * mailings. Expanding a send's audience into deliveries is in expansion.repository.ts.
 */
import { sql, type Insertable, type Selectable } from 'kysely';
import type { Dialect } from '../../db/connect.ts';
import { precompile } from '../../db/precompiled.ts';
import type { CampaignMailingSendsTable, Queryable } from '../../db/types.ts';
import { enqueueDeliveries } from './queue.repository.ts';

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

/** How many campaign sends are expanding or sending right now, across all accounts. */
export async function countSendsInProgress(db: Queryable): Promise<number> {
  const row = await db
    .selectFrom('campaign_mailing_sends')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('state', 'in', ['expanding', 'sending'])
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
