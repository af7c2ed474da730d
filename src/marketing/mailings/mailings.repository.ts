/** SQL for campaign mailings: the rows of an account, their pages, the sends that block a delete, and subscriber values for personalisation. */
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Dialect } from '../../db/connect.ts';
import type { CampaignMailingsTable, Queryable } from '../../db/types.ts';
import { precompile } from '../../db/precompiled.ts';

export type MailingRow = Selectable<CampaignMailingsTable>;

/** Rows per statement when a request names many mailings. */
const CHUNK = 500;

/** Sort keys of the mailings list. */
export const MAILING_ORDERS = [
  'subject',
  'created_at',
  'updated_at',
  'sent_count',
  'delivered_count',
  'viewed_count',
  'clicked_count',
  'bounced_count',
  'unsubscribed_count',
] as const;
export type MailingOrder = (typeof MAILING_ORDERS)[number];

/** The columns the list shows (everything but the content). */
const LIST_COLUMNS = ['id', 'uuid', 'template_type', ...MAILING_ORDERS] as const;
export type MailingListRow = Pick<MailingRow, (typeof LIST_COLUMNS)[number]>;

/** Send states during which the mailing's content is being read and the mailing must stay. */
const BUSY_STATES = ['expanding', 'sending'];

/** One page (or all, when `limit` is null) of an account's mailings, without their content. */
export async function listMailings(
  db: Queryable,
  customerId: number,
  q: {
    templateType?: string;
    orderBy: MailingOrder;
    direction: 'asc' | 'desc';
    limit: number | null;
    offset: number;
  },
): Promise<MailingListRow[]> {
  let query = db.selectFrom('campaign_mailings').select(LIST_COLUMNS).where('customer_id', '=', customerId);
  if (q.templateType !== undefined) query = query.where('template_type', '=', q.templateType);
  // Subjects sort by their lower-cased key so that letter case does not split the order.
  query = query
    .orderBy(q.orderBy === 'subject' ? 'subject_key' : q.orderBy, q.direction)
    .orderBy('id', q.direction);
  if (q.limit !== null) query = query.limit(q.limit).offset(q.offset);
  return query.execute();
}

/** One mailing of an account (another account's mailing is not found either). */
export async function findMailing(
  db: Queryable,
  customerId: number,
  id: number,
): Promise<MailingRow | undefined> {
  return db
    .selectFrom('campaign_mailings')
    .selectAll()
    .where('id', '=', id)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
}

/** The mailing of an account with this subject key, if any. */
export async function findBySubjectKey(
  db: Queryable,
  customerId: number,
  subjectKey: string,
): Promise<{ id: number; uuid: string } | undefined> {
  return db
    .selectFrom('campaign_mailings')
    .select(['id', 'uuid'])
    .where('customer_id', '=', customerId)
    .where('subject_key', '=', subjectKey)
    .executeTakeFirst();
}

/** Inserts a mailing; returns its id. */
export async function insertMailing(db: Queryable, row: Insertable<CampaignMailingsTable>): Promise<number> {
  const r = await db.insertInto('campaign_mailings').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(r.id);
}

/** Changes a mailing. */
export async function updateMailing(
  db: Queryable,
  id: number,
  patch: Updateable<CampaignMailingsTable>,
): Promise<void> {
  await db.updateTable('campaign_mailings').set(patch).where('id', '=', id).execute();
}

/** Which of these mailings have a send that is expanding or sending. */
export async function busyMailingIds(db: Queryable, ids: number[]): Promise<number[]> {
  const busy = await inChunks(ids, async (chunk) => {
    const rows = await db
      .selectFrom('campaign_mailing_sends')
      .select('campaign_mailing_id')
      .where('campaign_mailing_id', 'in', chunk)
      .where('state', 'in', BUSY_STATES)
      .execute();
    return rows.map((r) => Number(r.campaign_mailing_id));
  });
  return [...new Set(busy)];
}

/**
 * Deletes mailings that have no busy send (their sends, deliveries and links go with them through the schema's
 * cascades); returns how many went.
 */
export async function deleteIdleMailings(db: Queryable, customerId: number, ids: number[]): Promise<number> {
  const counts = await inChunks(ids, async (chunk) => {
    const res = await db
      .deleteFrom('campaign_mailings')
      .where('customer_id', '=', customerId)
      .where('id', 'in', chunk)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('campaign_mailing_sends as s')
              .select('s.id')
              .whereRef('s.campaign_mailing_id', '=', 'campaign_mailings.id')
              .where('s.state', 'in', BUSY_STATES),
          ),
        ),
      )
      .executeTakeFirst();
    return [Number(res.numDeletedRows)];
  });
  return counts.reduce((a, b) => a + b, 0);
}

// Read for every marketing delivery (see db/precompiled.ts).
const subscriberNamesQuery = precompile((db, v: { subscriberId: number }) =>
  db.selectFrom('subscribers').select(['email', 'first_name', 'last_name']).where('id', '=', v.subscriberId),
);

/** A subscriber's email and names, by id alone (the caller already knows the subscriber's account). */
export async function findSubscriberNames(
  db: Queryable,
  subscriberId: number,
): Promise<{ email: string; first_name: string | null; last_name: string | null } | undefined> {
  return (await subscriberNamesQuery(db, { subscriberId })).rows[0];
}

/** Runs a statement per chunk of ids (keeping under every dialect's parameter limit) and joins the results. */
async function inChunks<T>(ids: number[], run: (chunk: number[]) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < ids.length; i += CHUNK) out.push(...(await run(ids.slice(i, i + CHUNK))));
  return out;
}

/** Locks a mailing's row until the transaction ends (PostgreSQL; SQLite runs one writing transaction at a time). */
export async function lockMailingRow(db: Queryable, dialect: Dialect, id: number): Promise<void> {
  if (dialect !== 'postgres') return;
  await db.selectFrom('campaign_mailings').select('id').where('id', '=', id).forUpdate().execute();
}
