/** Optional pagination of marketing list endpoints: `use_pagination=true` with `page` and `items` adds `page_info` (with `count`) and `total_count`. */
import { Type, type TSchema } from '@sinclair/typebox';

/** Query parameters of an optionally paginated list. */
export const PaginationQuery = {
  use_pagination: Type.Optional(
    Type.Boolean({ description: 'Answer one page with `page_info` and `total_count`' }),
  ),
  page: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Default 1 (with use_pagination)' }),
  ),
  items: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1000, description: 'Default 50 (with use_pagination)' }),
  ),
};

/** What a paginated answer carries beside `data`. */
export const PageInfo = Type.Object({
  count: Type.Integer({ description: 'How many match, the same as total_count' }),
  page: Type.Integer(),
  items: Type.Integer(),
  pages: Type.Integer(),
  total_count: Type.Integer(),
});

/** The answer of an optionally paginated list of `item`. */
export const PagedAnswer = <T extends TSchema>(item: T) =>
  Type.Object({
    data: Type.Array(item),
    page_info: Type.Optional(PageInfo),
    total_count: Type.Optional(Type.Integer()),
  });

/** The page asked for: limit and offset when `use_pagination` is on, else null (the whole list). */
export interface PageAsked {
  page: number;
  items: number;
  limit: number;
  offset: number;
}

/** Reads the pagination parameters; null when the client did not ask for pages. */
export function pageAsked(q: { use_pagination?: boolean; page?: number; items?: number }): PageAsked | null {
  if (!q.use_pagination) return null;
  const page = q.page ?? 1;
  const items = q.items ?? 50;
  return { page, items, limit: items, offset: (page - 1) * items };
}

/** `{data}` or, for a page, `{data, page_info, total_count}`. */
export function pagedAnswer<T>(data: T[], page: PageAsked | null, total: number) {
  if (!page) return { data };
  return {
    data,
    page_info: {
      count: total,
      page: page.page,
      items: page.items,
      pages: Math.ceil(total / page.items),
      total_count: total,
    },
    total_count: total,
  };
}
