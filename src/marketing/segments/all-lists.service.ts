/** `GET /lists`: the account's subscription lists (default first) followed by its dynamic lists, in one list. */
import type { AppContext } from '../../context.ts';
import { listEntriesOf } from '../lists/lists.service.ts';
import { compareBy, listSortOf, type ListIndexQuery, type ListOrder } from '../list-query.ts';
import { pageAsked, pagedAnswer } from '../paging.ts';
import { dynamicListEntriesOf } from './segments.service.ts';

/**
 * Both kinds of list whose name contains the search, in their natural order or sorted together as asked; a page of the
 * combined sequence when asked. Lists are few per account, so both are read whole.
 */
export async function allListsOf(
  ctx: AppContext,
  customerId: number,
  q: ListIndexQuery<ListOrder> & { with_stats?: boolean },
) {
  const sort = listSortOf(q);
  const [subscription, dynamic] = await Promise.all([
    listEntriesOf(ctx, customerId, sort.search),
    dynamicListEntriesOf(ctx, customerId, sort.search, q.with_stats === true),
  ]);
  const entries = [...subscription, ...dynamic];
  if (sort.orderBy !== null) entries.sort(compareBy(sort.orderBy, sort.direction));
  const all = entries.map((e) => e.view);
  const page = pageAsked(q);
  return pagedAnswer(page ? all.slice(page.offset, page.offset + page.limit) : all, page, all.length);
}
