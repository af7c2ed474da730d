/**
 * Dynamic lists (segments): named filters over an account's subscribers. Membership is computed by the database each
 * time it is read (count, page, export, send expansion); a send freezes the filters and the moment it expands.
 */
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/types.ts';
import { AppError } from '../../errors/app-error.ts';
import { resolveId } from '../ids.repository.ts';
import { pageAsked, pagedAnswer } from '../paging.ts';
import { listSortOf, type ListIndexQuery, type ListOrder } from '../list-query.ts';
import { countMatching, filterSql } from './filters.repository.ts';
import { parseFilters, type Filters } from './filters.ts';
import {
  countDynamicLists,
  deleteDynamicList,
  findDynamicList,
  insertDynamicList,
  listDynamicLists,
  updateDynamicList,
  type DynamicListRow,
} from './segments.repository.ts';

/**
 * The SQL conditions over subscriber alias `s` that the rooms above build their subscriber queries with: what filters
 * mean (`now` anchors `within_days`), all of several conditions, and membership of a list.
 */
export { allOf, filterSql, onList } from './filters.repository.ts';

/** A dynamic list as shown. */
export interface DynamicListView {
  id: string;
  type: 'dynamic_list';
  attributes: {
    name: string;
    filters: unknown;
    created_at: string;
    updated_at: string;
    subscriber_count?: number;
  };
}

/** A dynamic list of the account by an id as sent; otherwise not found. */
export async function requireDynamicList(
  db: Queryable,
  customerId: number,
  raw: string | number,
): Promise<DynamicListRow> {
  const id = await resolveId(db, 'dynamic_lists', customerId, raw);
  const row = id === null ? undefined : await findDynamicList(db, customerId, id);
  if (!row)
    throw new AppError('marketing.dynamic_list_not_found', `dynamic list ${String(raw)} was not found`);
  return row;
}

/** The stored filters of a dynamic list. */
export const filtersOf = (row: DynamicListRow): Filters => JSON.parse(row.filters) as Filters;

/** A dynamic list's filters as JSON text now, or undefined when the list is gone (a send then keeps the copy it took). */
export async function currentFilters(
  ctx: AppContext,
  customerId: number,
  dynamicListId: number,
): Promise<string | undefined> {
  return (await findDynamicList(ctx.database.db, customerId, dynamicListId))?.filters;
}

/** How many subscribers of the account match filters right now. */
export async function matchCount(ctx: AppContext, customerId: number, filters: Filters): Promise<number> {
  return countMatching(ctx.database.reader, customerId, filterSql(filters, customerId, Date.now()));
}

/** Lists the account's dynamic lists matching the search, sorted as asked; with `with_stats` each carries its count. */
export async function dynamicListsOf(
  ctx: AppContext,
  customerId: number,
  q: ListIndexQuery<ListOrder> & { with_stats?: boolean },
) {
  const page = pageAsked(q);
  const sort = listSortOf(q);
  const db = ctx.database.reader;
  const [rows, total] = await Promise.all([
    listDynamicLists(db, customerId, page ?? undefined, sort),
    page ? countDynamicLists(db, customerId, sort.search) : Promise.resolve(0),
  ]);
  const views = await Promise.all(rows.map((r) => view(ctx, r, q.with_stats === true)));
  return pagedAnswer(views, page, total);
}

/** Every dynamic list of the account whose name contains `search`, shown, with the values `/lists` sorts by. */
export async function dynamicListEntriesOf(
  ctx: AppContext,
  customerId: number,
  search: string | null,
  withStats: boolean,
) {
  const rows = await listDynamicLists(ctx.database.reader, customerId, undefined, {
    search,
    orderBy: null,
    direction: 'asc',
  });
  return Promise.all(
    rows.map(async (r) => ({
      id: Number(r.id),
      key: { name: r.name, created_at: Number(r.created_at), updated_at: Number(r.updated_at) },
      view: await view(ctx, r, withStats),
    })),
  );
}

/** One dynamic list with its current subscriber count. */
export async function dynamicListOf(
  ctx: AppContext,
  customerId: number,
  raw: string,
): Promise<DynamicListView> {
  return view(ctx, await requireDynamicList(ctx.database.reader, customerId, raw), true);
}

/** Creates a dynamic list. */
export async function createDynamicList(
  ctx: AppContext,
  customerId: number,
  body: { name: string; filters?: unknown },
) {
  const filters = parseFilters(body.filters ?? []);
  const now = Date.now();
  const id = await insertDynamicList(ctx.database.db, {
    customer_id: customerId,
    name: checkName(body.name),
    filters: JSON.stringify(filters),
    created_at: now,
    updated_at: now,
  });
  return dynamicListOf(ctx, customerId, String(id));
}

/** Changes a dynamic list's name, filters or both. */
export async function changeDynamicList(
  ctx: AppContext,
  customerId: number,
  raw: string,
  body: { name?: string; filters?: unknown },
) {
  const row = await requireDynamicList(ctx.database.db, customerId, raw);
  const filters = body.filters === undefined ? undefined : parseFilters(body.filters);
  await updateDynamicList(ctx.database.db, row.id, {
    ...(body.name !== undefined && { name: checkName(body.name) }),
    ...(filters && { filters: JSON.stringify(filters) }),
    updated_at: Date.now(),
  });
  return dynamicListOf(ctx, customerId, String(row.id));
}

/** Deletes a dynamic list. */
export async function removeDynamicList(
  ctx: AppContext,
  customerId: number,
  raw: string,
): Promise<Record<string, never>> {
  const row = await requireDynamicList(ctx.database.db, customerId, raw);
  await deleteDynamicList(ctx.database.db, row.id);
  return {};
}

async function view(ctx: AppContext, r: DynamicListRow, withCount: boolean): Promise<DynamicListView> {
  const filters = filtersOf(r);
  return {
    id: r.uuid,
    type: 'dynamic_list',
    attributes: {
      name: r.name,
      filters: filters.map((g) => g.map((c) => ({ field: c.field, op: c.op, terms: c.terms }))),
      created_at: new Date(Number(r.created_at)).toISOString(),
      updated_at: new Date(Number(r.updated_at)).toISOString(),
      ...(withCount && { subscriber_count: await matchCount(ctx, Number(r.customer_id), filters) }),
    },
  };
}

function checkName(name: string): string {
  const clean = name.trim();
  if (!clean || clean.length > 255)
    throw new AppError('marketing.dynamic_list_name_invalid', 'name must be 1 to 255 characters', {
      details: [{ field: 'name', message: clean ? 'is too long' : 'must not be blank' }],
    });
  return clean;
}
