/** SQL shared by the list indexes (subscription lists and dynamic lists): a search on the name, a sort and a page. */
import { sql, type Selectable } from 'kysely';
import type { DB, Queryable } from '../db/types.ts';
import { containsText } from '../db/like.ts';
import type { ListSort } from './list-query.ts';

/** The tables a list index reads. */
export type ListTable = 'subscription_lists' | 'dynamic_lists';

/**
 * The account's rows of `table` whose name contains the search, sorted as asked; without a sort key, in their natural
 * order (`defaultFirst`: the default list first, then oldest first). One page when `page` is given.
 */
export async function listIndexRows<T extends ListTable>(
  db: Queryable,
  table: T,
  customerId: number,
  sort: ListSort,
  page?: { limit: number; offset: number },
  defaultFirst = false,
): Promise<Selectable<DB[T]>[]> {
  let q = matching(db, table, customerId, sort.search).selectAll();
  if (sort.orderBy === null) {
    if (defaultFirst) q = q.orderBy(sql.ref('is_default'), 'desc');
    q = q.orderBy('id');
  } else
    q = q
      .orderBy(sort.orderBy === 'name' ? sql`lower(name)` : sql.ref(sort.orderBy), sort.direction)
      .orderBy('id', sort.direction);
  if (page) q = q.limit(page.limit).offset(page.offset);
  return (await q.execute()) as Selectable<DB[T]>[];
}

/** How many of the account's rows of `table` have a name containing the search (all of them when it is null). */
export async function countIndexRows(
  db: Queryable,
  table: ListTable,
  customerId: number,
  search: string | null = null,
): Promise<number> {
  const r = await matching(db, table, customerId, search)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

function matching(db: Queryable, table: ListTable, customerId: number, search: string | null) {
  const q = db.selectFrom(table).where('customer_id', '=', customerId);
  return search === null ? q : q.where(containsText(sql.ref('name'), search));
}
