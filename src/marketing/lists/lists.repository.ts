/** SQL for subscription lists: the lists of an account, the default list, and the maintained member counter. */
import { sql, type Insertable, type Selectable } from 'kysely';
import type { Queryable, SubscriptionListsTable } from '../../db/types.ts';
import type { ListSort } from '../list-query.ts';
import { countIndexRows, listIndexRows } from '../list-index.repository.ts';

export type ListRow = Selectable<SubscriptionListsTable>;

/**
 * The lists of an account whose name contains the search, sorted as asked (by default the default list first, then
 * oldest first); one page of them when `page` is given.
 */
export function listLists(
  db: Queryable,
  customerId: number,
  page?: { limit: number; offset: number },
  sort: ListSort = { search: null, orderBy: null, direction: 'asc' },
): Promise<ListRow[]> {
  return listIndexRows(db, 'subscription_lists', customerId, sort, page, true);
}

/** How many lists of an account have a name containing the search (all of them when it is null). */
export const countLists = (db: Queryable, customerId: number, search: string | null = null) =>
  countIndexRows(db, 'subscription_lists', customerId, search);

/** Members of a list that are subscribed: not unsubscribed from the list, nor globally. */
export async function countSubscribed(db: Queryable, listId: number): Promise<number> {
  const r = await db
    .selectFrom('subscription_list_members as m')
    .innerJoin('subscribers as s', 's.id', 'm.subscriber_id')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('m.list_id', '=', listId)
    .where('m.unsubscribed', '=', 0)
    .where('s.unsubscribed', '=', 0)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** One list of an account (another account's list is not found either). */
export async function findList(db: Queryable, customerId: number, id: number): Promise<ListRow | undefined> {
  return db
    .selectFrom('subscription_lists')
    .selectAll()
    .where('id', '=', id)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
}

/** The default list of an account, if it was created. */
export async function findDefaultList(db: Queryable, customerId: number): Promise<ListRow | undefined> {
  return db
    .selectFrom('subscription_lists')
    .selectAll()
    .where('customer_id', '=', customerId)
    .where('is_default', '=', 1)
    .executeTakeFirst();
}

/** Inserts a list; returns its id. */
export async function insertList(db: Queryable, row: Insertable<SubscriptionListsTable>): Promise<number> {
  const r = await db.insertInto('subscription_lists').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(r.id);
}

/** Renames a list. */
export async function renameList(db: Queryable, id: number, name: string, now: number): Promise<void> {
  await db.updateTable('subscription_lists').set({ name, updated_at: now }).where('id', '=', id).execute();
}

/** Deletes a list; its memberships go with it. */
export async function deleteList(db: Queryable, id: number): Promise<void> {
  await db.deleteFrom('subscription_list_members').where('list_id', '=', id).execute();
  await db.deleteFrom('subscription_lists').where('id', '=', id).execute();
}

/** Adds `delta` (positive or negative) to a list's member counter. */
export async function bumpSubscriberCount(
  db: Queryable,
  listId: number,
  delta: number,
  now: number,
): Promise<void> {
  if (delta === 0) return;
  await db
    .updateTable('subscription_lists')
    .set((eb) => ({ subscriber_count: eb('subscriber_count', '+', delta), updated_at: now }))
    .where('id', '=', listId)
    .execute();
}

/** Ids of the forms (not deleted) that feed each of an account's lists, keyed by list id as text. */
export async function formsFeedingLists(db: Queryable, customerId: number): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom('forms')
    .select(['id', 'subscription_list_id'])
    .where('customer_id', '=', customerId)
    .where('subscription_list_id', 'is not', null)
    .where('deleted', '=', 0)
    .orderBy('created_at')
    .execute();
  const out = new Map<string, string>();
  for (const r of rows)
    if (r.subscription_list_id && !out.has(r.subscription_list_id)) out.set(r.subscription_list_id, r.id);
  return out;
}

/** Creates the account's default list unless it exists (the partial unique index keeps one per account). */
export async function insertDefaultList(
  db: Queryable,
  customerId: number,
  name: string,
  now: number,
): Promise<void> {
  await db
    .insertInto('subscription_lists')
    .values({
      customer_id: customerId,
      name,
      is_default: 1,
      subscriber_count: 0,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.column('customer_id').where('is_default', '=', sql.lit(1)).doNothing())
    .execute();
}

/** The name of a list by id, whatever its account. */
export async function findListName(db: Queryable, id: number): Promise<{ name: string } | undefined> {
  return db.selectFrom('subscription_lists').select('name').where('id', '=', id).executeTakeFirst();
}
