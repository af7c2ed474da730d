/** SQL of subscriptions: list memberships seen as records, and the set-based opt-in and opt-out changes. */
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Queryable } from '../../db/types.ts';

const COLUMNS = [
  'm.id',
  'm.uuid',
  'm.list_id',
  'm.subscriber_id',
  's.uuid as subscriber_uuid',
  'm.unsubscribed',
  'm.confirmed_at',
  'l.double_opt_in',
  'm.created_at',
  'm.updated_at',
] as const;

/** The account's memberships with the columns of a record, not yet ordered or limited. */
function accountSubscriptions(db: Queryable, customerId: number) {
  return db
    .selectFrom('subscription_list_members as m')
    .innerJoin('subscription_lists as l', 'l.id', 'm.list_id')
    .innerJoin('subscribers as s', 's.id', 'm.subscriber_id')
    .select(COLUMNS)
    .where('l.customer_id', '=', customerId);
}

/** A page of the account's memberships, oldest first. */
export async function listSubscriptions(db: Queryable, customerId: number, limit: number, offset: number) {
  return accountSubscriptions(db, customerId).orderBy('m.id').limit(limit).offset(offset).execute();
}

/** The account's memberships with an id above `afterId`, oldest first: one keyset batch of a full read. */
export async function subscriptionsAfter(db: Queryable, customerId: number, afterId: number, limit: number) {
  return accountSubscriptions(db, customerId)
    .where('m.id', '>', afterId)
    .orderBy('m.id')
    .limit(limit)
    .execute();
}

/** How many memberships the account's lists hold. */
export async function countSubscriptions(db: Queryable, customerId: number): Promise<number> {
  const r = await db
    .selectFrom('subscription_list_members as m')
    .innerJoin('subscription_lists as l', 'l.id', 'm.list_id')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('l.customer_id', '=', customerId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** One membership of the account, by its UUID or by its list and subscriber. */
export async function findSubscription(
  db: Queryable,
  customerId: number,
  by: { uuid: string } | { listId: number; subscriberId: number },
) {
  const q = accountSubscriptions(db, customerId);
  return (
    'uuid' in by
      ? q.where('m.uuid', '=', by.uuid)
      : q.where('m.list_id', '=', by.listId).where('m.subscriber_id', '=', by.subscriberId)
  ).executeTakeFirst();
}

/** Sets the list-level opt-out of the memberships of these subscribers on these lists; returns how many changed. */
export async function setListOptOut(
  db: Queryable,
  subscriberIds: number[],
  listIds: number[],
  out: boolean,
  now: number,
): Promise<number> {
  if (subscriberIds.length === 0 || listIds.length === 0) return 0;
  const r = await db
    .updateTable('subscription_list_members')
    .set({ unsubscribed: out ? 1 : 0, updated_at: now })
    .where('subscriber_id', 'in', subscriberIds)
    .where('list_id', 'in', listIds)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** Sets the global opt-out of these subscribers of the account. */
export async function setGlobalOptOut(
  db: Queryable,
  customerId: number,
  subscriberIds: number[],
  out: boolean,
  now: number,
): Promise<number> {
  if (subscriberIds.length === 0) return 0;
  const r = await db
    .updateTable('subscribers')
    .set({ unsubscribed: out ? 1 : 0, unsubscribed_at: out ? now : null, updated_at: now })
    .where('customer_id', '=', customerId)
    .where('id', 'in', subscriberIds)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/**
 * Sets the global opt-out of every subscriber of the account that matches `condition` (over alias `s`: a list, search
 * words, filters) except `exceptIds`, in one statement inside the database.
 */
export async function setGlobalOptOutWhere(
  db: Queryable,
  customerId: number,
  condition: RawBuilder<SqlBool>,
  exceptIds: number[],
  out: boolean,
  now: number,
): Promise<number> {
  const except = exceptIds.length ? sql`and s.id not in (${sql.join(exceptIds)})` : sql``;
  const r =
    await sql`update subscribers set unsubscribed = ${out ? 1 : 0}, unsubscribed_at = ${out ? now : null}, updated_at = ${now}
    where id in (select s.id from subscribers s where s.customer_id = ${customerId} and ${condition} ${except})`.execute(
      db,
    );
  return Number(r.numAffectedRows ?? 0);
}
