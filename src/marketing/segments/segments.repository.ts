/** SQL of dynamic lists: the saved filters of an account. Their members are never stored; they are a query. */
import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { DynamicListsTable, Queryable } from '../../db/types.ts';
import { containsText } from '../../db/like.ts';
import type { ListSort } from '../list-query.ts';

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
export async function listDynamicLists(
  db: Queryable,
  customerId: number,
  page?: { limit: number; offset: number },
  sort: ListSort = { search: null, orderBy: null, direction: 'asc' },
) {
  let q = matching(db, customerId, sort.search).selectAll();
  if (sort.orderBy === null) q = q.orderBy('id');
  else
    q = q
      .orderBy(sort.orderBy === 'name' ? sql`lower(name)` : sql.ref(sort.orderBy), sort.direction)
      .orderBy('id', sort.direction);
  if (page) q = q.limit(page.limit).offset(page.offset);
  return q.execute();
}

/** How many dynamic lists of an account have a name containing the search (all when it is null). */
export async function countDynamicLists(
  db: Queryable,
  customerId: number,
  search: string | null = null,
): Promise<number> {
  const r = await matching(db, customerId, search)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

function matching(db: Queryable, customerId: number, search: string | null) {
  const q = db.selectFrom('dynamic_lists').where('customer_id', '=', customerId);
  return search === null ? q : q.where(containsText(sql.ref('name'), search));
}

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
