/** `GET /lists`: the account's subscription lists (default first) followed by its dynamic lists, in one list. */
import type { AppContext } from '../../context.ts';
import { listsOf } from '../lists/lists.service.ts';
import { pageAsked, pagedAnswer } from '../paging.ts';
import { dynamicListsOf } from './segments.service.ts';

/** Both kinds of list; a page of the combined sequence when asked. Lists are few per account, so both are read whole. */
export async function allListsOf(
  ctx: AppContext,
  customerId: number,
  q: { use_pagination?: boolean; page?: number; items?: number; with_stats?: boolean },
) {
  const [subscription, dynamic] = await Promise.all([
    listsOf(ctx, customerId),
    dynamicListsOf(ctx, customerId, { with_stats: q.with_stats }),
  ]);
  const all = [...subscription.data, ...dynamic.data];
  const page = pageAsked(q);
  return pagedAnswer(page ? all.slice(page.offset, page.offset + page.limit) : all, page, all.length);
}
