/**
 * SQL of campaign sends: the send rows and their states, and the send's links. Expanding a send's audience into
 * deliveries is in expansion.repository.ts; the counters its deliveries add to a send and its mailing, and the send's
 * completion, are the deliveries' (deliveries/send-progress.repository.ts).
 */
import type { Insertable, Selectable } from 'kysely';
import type { CampaignMailingSendsTable, Queryable } from '../../db/types.ts';

export type SendRow = Selectable<CampaignMailingSendsTable>;

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

/** Whether a mailing has a send that went out or may still go (anything but a schedule cancelled before it began). */
export async function mailingHasSend(db: Queryable, mailingId: number): Promise<boolean> {
  const row = await db
    .selectFrom('campaign_mailing_sends')
    .select('id')
    .where('campaign_mailing_id', '=', mailingId)
    .where((eb) => eb.or([eb('state', '!=', 'cancelled'), eb('frozen_at', 'is not', null)]))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
