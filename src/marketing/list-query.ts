/**
 * The query of the list indexes (`/lists`, `/subscription_lists`, `/dynamic_lists`): pages, a search on the name and a
 * sort. Without `order_by` and `order` a list keeps its natural order (the default list first, then oldest first).
 */
import { Type, type TProperties } from '@sinclair/typebox';
import { PaginationQuery } from './paging.ts';

/** Sort keys every kind of list has. */
export const LIST_ORDER = ['name', 'created_at', 'updated_at'] as const;
/** Sort keys of subscription lists: also their member counter. */
export const SUBSCRIPTION_LIST_ORDER = [...LIST_ORDER, 'subscriber_count'] as const;

/** A sort key of subscription lists. */
export type SubscriptionListOrder = (typeof SUBSCRIPTION_LIST_ORDER)[number];
/** A sort key every kind of list has. */
export type ListOrder = (typeof LIST_ORDER)[number];

/** A list index query as read. */
export interface ListIndexQuery<K extends string> {
  use_pagination?: boolean;
  page?: number;
  items?: number;
  search?: string;
  order_by?: K;
  order?: 'asc' | 'desc';
}

/** The query schema of a list index sorted by one of `keys`; `extra` adds parameters of its own. */
export function listIndexQuery<const K extends readonly string[], E extends TProperties>(keys: K, extra: E) {
  return Type.Object(
    {
      ...PaginationQuery,
      ...extra,
      search: Type.Optional(
        Type.String({
          maxLength: 200,
          description: 'Lists whose name contains this text, letter case ignored',
        }),
      ),
      order_by: Type.Optional(
        Type.Unsafe<K[number]>({
          type: 'string',
          enum: [...keys],
          description: 'Sort key; with `order` alone, created_at',
        }),
      ),
      order: Type.Optional(
        Type.Unsafe<'asc' | 'desc'>({
          type: 'string',
          enum: ['asc', 'desc'],
          description: 'Direction; default desc when `order_by` is given',
        }),
      ),
    },
    { additionalProperties: true },
  );
}

/** What a list index was asked to match and how to sort it. */
export interface ListSort<K extends string = string> {
  /** Text the name must contain, letter case ignored; null for every list. */
  search: string | null;
  /** The sort key; null for the natural order. */
  orderBy: K | null;
  direction: 'asc' | 'desc';
}

/** Reads the search and sort parameters. A blank search is no search. */
export function listSortOf<K extends string>(q: {
  search?: string;
  order_by?: K;
  order?: 'asc' | 'desc';
}): ListSort<K> {
  const search = q.search?.trim() ? q.search.trim() : null;
  if (q.order_by === undefined && q.order === undefined) return { search, orderBy: null, direction: 'asc' };
  return { search, orderBy: q.order_by ?? ('created_at' as K), direction: q.order ?? 'desc' };
}

/** Compares two entries by a sort key: names ignoring letter case, then the id as the tie-break. */
export function compareBy<T extends { key: Record<string, string | number>; id: number }>(
  orderBy: string,
  direction: 'asc' | 'desc',
) {
  const sign = direction === 'asc' ? 1 : -1;
  return (a: T, b: T): number => {
    const x = a.key[orderBy]!;
    const y = b.key[orderBy]!;
    const c =
      typeof x === 'string' && typeof y === 'string'
        ? x.toLowerCase().localeCompare(y.toLowerCase())
        : Number(x) - Number(y);
    return sign * (c !== 0 ? c : a.id - b.id);
  };
}
