/** SQL of dynamic lists: the saved filters of an account. Their members are never stored; they are a query. */
import { type Insertable, type Selectable, type Updateable } from 'kysely';
import type { DynamicListsTable, Queryable } from '../../db/types.ts';
import type { ListSort } from '../list-query.ts';
import { countIndexRows, listIndexRows } from '../list-index.repository.ts';

export type DynamicListRow = Selectable<DynamicListsTable>;

/** Inserts a dynamic list; returns its id. */
export async function insertDynamicList(db: Queryable, row: Insertable<DynamicListsTable>): Promise<number> {
  const r = await db.insertInto('dynamic_lists').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(r.id);
}

/** One dynamic list of an account. */
export async function findDynamicList(
  db: Queryable,
  customerId: number,
  id: number,
): Promise<DynamicListRow | undefined> {
  return db
    .selectFrom('dynamic_lists')
    .selectAll()
    .where('id', '=', id)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
}

/** The dynamic lists of an account whose name contains the search, oldest first or as asked; one page when `page` is given. */
export function listDynamicLists(
  db: Queryable,
  customerId: number,
  page?: { limit: number; offset: number },
  sort: ListSort = { search: null, orderBy: null, direction: 'asc' },
) {
  return listIndexRows(db, 'dynamic_lists', customerId, sort, page);
}

/** How many dynamic lists of an account have a name containing the search (all when it is null). */
export const countDynamicLists = (db: Queryable, customerId: number, search: string | null = null) =>
  countIndexRows(db, 'dynamic_lists', customerId, search);

/** Changes a dynamic list. */
export async function updateDynamicList(
  db: Queryable,
  id: number,
  set: Updateable<DynamicListsTable>,
): Promise<void> {
  await db.updateTable('dynamic_lists').set(set).where('id', '=', id).execute();
}

/** Deletes a dynamic list (sends keep the filters they froze). */
export async function deleteDynamicList(db: Queryable, id: number): Promise<void> {
  await db.deleteFrom('dynamic_lists').where('id', '=', id).execute();
}
