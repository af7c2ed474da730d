/** SQL of dynamic lists: the saved filters of an account. Their members are never stored; they are a query. */
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { DynamicListsTable, Queryable } from '../../db/types.ts';

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

/** The dynamic lists of an account, oldest first; one page when `page` is given. */
export async function listDynamicLists(
  db: Queryable,
  customerId: number,
  page?: { limit: number; offset: number },
) {
  let q = db.selectFrom('dynamic_lists').selectAll().where('customer_id', '=', customerId).orderBy('id');
  if (page) q = q.limit(page.limit).offset(page.offset);
  return q.execute();
}

/** How many dynamic lists an account has. */
export async function countDynamicLists(db: Queryable, customerId: number): Promise<number> {
  const r = await db
    .selectFrom('dynamic_lists')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('customer_id', '=', customerId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
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
