/**
 * Subscription lists of an account: listing, creating, renaming and deleting them. Every account has one default list
 * (all contacts), created on first use, that holds every subscriber and cannot be renamed or deleted.
 */
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/types.ts';
import { AppError } from '../../errors/app-error.ts';
import { resolveId } from '../ids.repository.ts';
import { isDefaultListRef } from '../ids.ts';
import { pageAsked, pagedAnswer } from '../paging.ts';
import { listSortOf, type ListIndexQuery, type SubscriptionListOrder } from '../list-query.ts';
import {
  countLists,
  countSubscribed,
  deleteList,
  findDefaultList,
  findList,
  formsFeedingLists,
  insertDefaultList,
  insertList,
  listLists,
  renameList,
  type ListRow,
} from './lists.repository.ts';

/** A stored list, as the rooms above lists read it. */
export type { ListRow };
/** Moves a list's subscriber counter and reads a list's name, inside the caller's transaction (the membership writers). */
export { bumpSubscriberCount, findListName } from './lists.repository.ts';

/** The name the default list is created with. */
export const DEFAULT_LIST_NAME = 'All contacts';

/** A list as the API shows it. */
export interface ListView {
  id: number;
  uuid: string;
  type: 'subscription_list';
  attributes: {
    name: string;
    is_default: boolean;
    subscriber_count: number;
    form_id: string | null;
    double_opt_in: boolean;
    public: boolean;
  };
}

/** The account's default list, created when it does not exist yet (safe under concurrent first use, and inside a transaction). */
export async function ensureDefaultList(
  db: Queryable,
  customerId: number,
  now = Date.now(),
): Promise<ListRow> {
  const found = await findDefaultList(db, customerId);
  if (found) return found;
  await insertDefaultList(db, customerId, DEFAULT_LIST_NAME, now);
  const created = await findDefaultList(db, customerId);
  if (!created) throw new AppError('internal', 'the default subscription list could not be created');
  return created;
}

/**
 * A list of the account by an id as sent (integer, UUID, or `default` for the default list, created on first use);
 * another account's list or a malformed id is not found.
 */
export async function requireList(
  db: Queryable,
  customerId: number,
  rawId: string | number,
): Promise<ListRow> {
  if (isDefaultListRef(rawId)) return ensureDefaultList(db, customerId);
  const id = await resolveId(db, 'subscription_lists', customerId, rawId);
  const row = id === null ? undefined : await findList(db, customerId, id);
  if (!row)
    throw new AppError('marketing.list_not_found', `subscription list ${String(rawId)} was not found`);
  return row;
}

/** The lists of the account matching the search, sorted as asked (the default list first by default); one page when asked. */
export async function listsOf(
  ctx: AppContext,
  customerId: number,
  q: ListIndexQuery<SubscriptionListOrder> = {},
) {
  await ensureDefaultList(ctx.database.db, customerId);
  const page = pageAsked(q);
  const sort = listSortOf(q);
  const db = ctx.database.reader;
  const [rows, forms, total] = await Promise.all([
    listLists(db, customerId, page ?? undefined, sort),
    formsFeedingLists(db, customerId),
    page ? countLists(db, customerId, sort.search) : Promise.resolve(0),
  ]);
  return pagedAnswer(
    rows.map((r) => listView(r, forms)),
    page,
    total,
  );
}

/** Every list of the account whose name contains `search`, shown, with the values `/lists` sorts by. */
export async function listEntriesOf(ctx: AppContext, customerId: number, search: string | null) {
  await ensureDefaultList(ctx.database.db, customerId);
  const db = ctx.database.reader;
  const [rows, forms] = await Promise.all([
    listLists(db, customerId, undefined, { search, orderBy: null, direction: 'asc' }),
    formsFeedingLists(db, customerId),
  ]);
  return rows.map((r) => ({
    id: Number(r.id),
    key: { name: r.name, created_at: Number(r.created_at), updated_at: Number(r.updated_at) },
    view: listView(r, forms),
  }));
}

/** One list of the account. */
export async function listOf(ctx: AppContext, customerId: number, rawId: string): Promise<ListView> {
  return viewOfList(ctx, customerId, await requireList(ctx.database.reader, customerId, rawId));
}

/** A list row of the account as the API shows it, with the form that feeds it. */
export async function viewOfList(ctx: AppContext, customerId: number, row: ListRow): Promise<ListView> {
  return listView(row, await formsFeedingLists(ctx.database.reader, customerId));
}

/** One of the account's lists by its key, read through `db` (a caller's transaction), or undefined. */
export async function findListOf(
  db: Queryable,
  customerId: number,
  id: number,
): Promise<ListRow | undefined> {
  return findList(db, customerId, id);
}

/** `GET /subscribers/subscribed_count`: subscribed members of a list (the default list when none is named). */
export async function subscribedCountOf(
  ctx: AppContext,
  customerId: number,
  rawId?: string,
): Promise<{ data: number }> {
  const db = ctx.database.reader;
  const list =
    rawId === undefined || rawId.trim() === '' || isDefaultListRef(rawId)
      ? await ensureDefaultList(ctx.database.db, customerId)
      : await requireList(db, customerId, rawId);
  return { data: await countSubscribed(db, list.id) };
}

/** Creates a list. */
export async function createList(ctx: AppContext, customerId: number, name: string): Promise<ListView> {
  const clean = checkName(name);
  const now = Date.now();
  const db = ctx.database.db;
  await ensureDefaultList(db, customerId, now);
  const id = await insertList(db, {
    customer_id: customerId,
    name: clean,
    is_default: 0,
    subscriber_count: 0,
    created_at: now,
    updated_at: now,
  });
  return listView((await findList(db, customerId, id))!, new Map());
}

/** Renames a list; the default list keeps its name. */
export async function renameListOf(
  ctx: AppContext,
  customerId: number,
  rawId: string | number,
  name: string,
): Promise<ListView> {
  const db = ctx.database.db;
  const row = await requireList(db, customerId, rawId);
  if (row.is_default === 1)
    throw new AppError('marketing.default_list_locked', 'the default list (all contacts) cannot be renamed');
  await renameList(db, row.id, checkName(name), Date.now());
  return listView((await findList(db, customerId, row.id))!, await formsFeedingLists(db, customerId));
}

/** Deletes a list with its memberships (the subscribers stay); the default list cannot be deleted. */
export async function removeList(
  ctx: AppContext,
  customerId: number,
  rawId: string | number,
): Promise<Record<string, never>> {
  const db = ctx.database.db;
  const row = await requireList(db, customerId, rawId);
  if (row.is_default === 1)
    throw new AppError('marketing.default_list_locked', 'the default list (all contacts) cannot be deleted');
  await db.transaction().execute((trx) => deleteList(trx, row.id));
  return {};
}

/** A list as shown. */
export function listView(r: ListRow, forms: Map<string, string>): ListView {
  return {
    id: Number(r.id),
    uuid: r.uuid,
    type: 'subscription_list',
    attributes: {
      name: r.name,
      is_default: r.is_default === 1,
      subscriber_count: Number(r.subscriber_count),
      form_id: forms.get(r.uuid) ?? forms.get(String(r.id)) ?? null,
      double_opt_in: r.double_opt_in === 1,
      public: r.public === 1,
    },
  };
}

function checkName(name: string): string {
  const clean = name.trim();
  if (!clean)
    throw new AppError('marketing.list_name_invalid', 'name must not be blank', {
      details: [{ field: 'name', message: 'must not be blank' }],
    });
  if (clean.length > 255)
    throw new AppError('marketing.list_name_invalid', 'name must be at most 255 characters', {
      details: [{ field: 'name', message: 'is too long' }],
    });
  if (clean.toLowerCase() === 'default')
    throw new AppError('marketing.list_name_invalid', 'a list cannot be named "default"', {
      details: [{ field: 'name', message: 'must not be "default"' }],
    });
  return clean;
}
