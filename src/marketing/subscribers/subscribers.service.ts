/**
 * Subscribers of an account: reading one or a page, creating and changing them, list membership (subscribe and
 * unsubscribe, per list or globally), and the suppression check sends use. Every subscriber is on the default list.
 */
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/types.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { AppError } from '../../errors/app-error.ts';
import { resolveId } from '../ids.repository.ts';
import { bumpSubscriberCount, ensureDefaultList, requireList } from '../lists/lists.service.ts';
import { ensureFieldTypes, fieldValuesOf, upsertFieldValues } from './custom-fields.repository.ts';
import {
  checkEmail,
  checkPhone,
  cleanName,
  normalFields,
  PHONE_KEY_PREFIX,
  type CustomFieldInput,
  type PhoneValue,
} from './subscriber-input.ts';
import {
  addMembers,
  countSubscribers,
  findByEmailKey,
  findMembership,
  findSubscriber,
  insertSubscriber,
  listsOfSubscriber,
  pageOfSubscribers,
  setMemberUnsubscribed,
  updateSubscriber,
  type SubscriberOrder,
  type SubscriberRow,
} from './subscribers.repository.ts';
import { fullView, shortView, type SubscriberFull, type SubscriberShort } from './subscriber-views.ts';
import { pagedAnswer } from '../paging.ts';
import { parseFilters } from '../segments/filters.ts';
import { allOf, filterSql, filtersOf, requireDynamicList } from '../segments/segments.service.ts';

/** A list id as clients send it. */
export type RawId = string | number;

/** `GET /subscribers` query. */
export interface SubscribersQuery {
  items: number;
  page: number;
  search?: string;
  order_by: SubscriberOrder;
  order: 'asc' | 'desc';
  subscription_list_id?: string;
  /** Only subscribers unsubscribed from everything (true) or not (false). */
  unsubscribed?: boolean;
  dynamic_list_id?: string;
  filters?: string;
  use_pagination?: boolean;
}

/** The subscriber fields of a create. */
export interface SubscriberInput {
  email?: string | null;
  first_name?: string | null;
  last_name?: string | null;
  phone_number?: string | null;
  custom_fields?: CustomFieldInput[];
}

/** The subscriber fields of a change; absent fields stay. */
export interface SubscriberPatch {
  email?: string;
  phone_number?: string | null;
  first_name?: string | null;
  last_name?: string | null;
  custom_fields?: CustomFieldInput[];
}

const SEARCH = /^[\p{L}\p{N}\s]*$/u;

/** A subscriber of the account by an id as sent; otherwise not found. */
export async function requireSubscriber(
  db: Queryable,
  customerId: number,
  rawId: RawId,
): Promise<SubscriberRow> {
  const id = await resolveId(db, 'subscribers', customerId, rawId);
  const row = id === null ? undefined : await findSubscriber(db, customerId, id);
  if (!row) throw new AppError('marketing.subscriber_not_found', `subscriber ${String(rawId)} was not found`);
  return row;
}

/**
 * One page of the account's subscribers: of a list, matching search words, a dynamic list and `filters` (all that are
 * given); with `use_pagination`, also the number matching.
 */
export async function subscribersOf(ctx: AppContext, customerId: number, q: SubscribersQuery) {
  const search = q.search ?? '';
  if (!SEARCH.test(search))
    throw new AppError('request.invalid', 'search may hold only letters, digits and whitespace', {
      details: [{ field: 'search', message: 'may hold only letters, digits and whitespace' }],
    });
  const db = ctx.database.reader;
  const listId =
    q.subscription_list_id === undefined
      ? null
      : (await requireList(db, customerId, q.subscription_list_id)).id;
  const segment =
    q.dynamic_list_id === undefined
      ? []
      : filtersOf(await requireDynamicList(db, customerId, q.dynamic_list_id));
  const asked = q.filters === undefined || q.filters.trim() === '' ? [] : parseFilters(q.filters);
  const now = Date.now();
  const filter =
    segment.length || asked.length
      ? allOf(filterSql(segment, customerId, now), filterSql(asked, customerId, now))
      : undefined;
  const match = { words: search.split(/\s+/).filter(Boolean), listId, filter, unsubscribed: q.unsubscribed };
  const page = { page: q.page, items: q.items, limit: q.items, offset: (q.page - 1) * q.items };
  const [rows, total] = await Promise.all([
    pageOfSubscribers(db, customerId, {
      ...match,
      limit: page.limit,
      offset: page.offset,
      orderBy: q.order_by,
      direction: q.order,
    }),
    q.use_pagination ? countSubscribers(db, customerId, match) : Promise.resolve(0),
  ]);
  return pagedAnswer(rows.map(shortView), q.use_pagination ? page : null, total);
}

/** One subscriber with its custom fields and lists, and with its campaign counters when asked. */
export async function subscriberOf(
  ctx: AppContext,
  customerId: number,
  rawId: RawId,
  withStats = false,
): Promise<SubscriberFull> {
  const db = ctx.database.reader;
  const row = await requireSubscriber(db, customerId, rawId);
  return fullView(row, await listsOfSubscriber(db, row.id), await fieldValuesOf(db, row.id), withStats);
}

/** Creates a subscriber on the default list and, when given, on another list. An email already present is a conflict. */
export async function createSubscriber(
  ctx: AppContext,
  customerId: number,
  input: SubscriberInput,
  listRaw?: RawId,
): Promise<SubscriberShort> {
  const phone = checkPhone(input.phone_number, 'subscriber.phone_number');
  const { email, key } = contactOf(input.email, phone);
  const db = ctx.database.db;
  const list = listRaw === undefined ? null : await requireList(db, customerId, listRaw);
  await refuseTaken(db, customerId, key);
  const now = Date.now();
  try {
    const id = await db.transaction().execute(async (trx) => {
      const sid = await insertSubscriber(trx, {
        customer_id: customerId,
        email,
        email_key: key,
        first_name: cleanName(input.first_name),
        last_name: cleanName(input.last_name),
        phone_number: phone.e164,
        phone_number_input: phone.typed,
        created_at: now,
        updated_at: now,
      });
      await joinLists(trx, customerId, [sid], list?.id ?? null, now);
      await setFields(trx, customerId, sid, input.custom_fields, now);
      return sid;
    });
    return shortView((await findSubscriber(db, customerId, id))!);
  } catch (err) {
    if (isUniqueViolation(err)) await refuseTaken(db, customerId, key);
    throw err;
  }
}

/**
 * The address and unique key of a new subscriber: its email, or for one given only a phone number, no address and the
 * key `tel:<E.164>` (unique per account like an email). Neither is a 400 naming `subscriber.email`.
 */
function contactOf(raw: string | null | undefined, phone: PhoneValue): { email: string; key: string } {
  if (raw !== undefined && raw !== null && raw.trim() !== '') return checkEmail(raw, 'subscriber.email');
  if (phone.e164) return { email: '', key: PHONE_KEY_PREFIX + phone.e164 };
  throw new AppError('request.invalid', 'subscriber.email is required', {
    details: [{ field: 'subscriber.email', message: 'is required unless subscriber.phone_number is given' }],
  });
}

/** Changes a subscriber's email, phone number, names or custom fields. */
export async function changeSubscriber(
  ctx: AppContext,
  customerId: number,
  rawId: RawId,
  patch: SubscriberPatch,
): Promise<SubscriberShort> {
  const db = ctx.database.db;
  const row = await requireSubscriber(db, customerId, rawId);
  const now = Date.now();
  const email = patch.email === undefined ? null : checkEmail(patch.email, 'subscriber.email');
  const phone =
    patch.phone_number === undefined ? null : checkPhone(patch.phone_number, 'subscriber.phone_number');
  const key = email?.key ?? phoneOnlyKey(row, phone);
  if (key && key !== row.email_key) await refuseTaken(db, customerId, key);
  try {
    await db.transaction().execute(async (trx) => {
      await updateSubscriber(trx, row.id, {
        ...(email && { email: email.email }),
        ...(key && { email_key: key }),
        ...(patch.first_name !== undefined && { first_name: cleanName(patch.first_name) }),
        ...(patch.last_name !== undefined && { last_name: cleanName(patch.last_name) }),
        ...(phone && { phone_number: phone.e164, phone_number_input: phone.typed }),
        updated_at: now,
      });
      await setFields(trx, customerId, row.id, patch.custom_fields, now);
    });
  } catch (err) {
    if (isUniqueViolation(err) && key) await refuseTaken(db, customerId, key);
    throw err;
  }
  return shortView((await findSubscriber(db, customerId, row.id))!);
}

/** The new key of a subscriber known by phone only whose number changes; clearing its only contact is a 400. */
function phoneOnlyKey(row: SubscriberRow, phone: PhoneValue | null): string | null {
  if (row.email !== '' || phone === null) return null;
  if (phone.e164) return PHONE_KEY_PREFIX + phone.e164;
  throw new AppError(
    'marketing.invalid_phone',
    'subscriber.phone_number is the only contact and cannot be cleared',
    {
      details: [
        { field: 'subscriber.phone_number', message: 'is required while the subscriber has no email' },
      ],
    },
  );
}

/**
 * Subscribes: with a list, puts the subscriber on it (or clears its unsubscribe there); without, clears the global
 * unsubscribe. Unsubscribes: with a list, marks the membership unsubscribed; without, unsubscribes globally.
 */
export async function setSubscribed(
  ctx: AppContext,
  customerId: number,
  rawId: RawId,
  subscribed: boolean,
  listRaw?: RawId,
): Promise<SubscriberFull> {
  const db = ctx.database.db;
  const row = await requireSubscriber(db, customerId, rawId);
  const now = Date.now();
  if (listRaw === undefined) {
    await updateSubscriber(db, row.id, {
      unsubscribed: subscribed ? 0 : 1,
      unsubscribed_at: subscribed ? null : now,
      updated_at: now,
    });
  } else {
    const list = await requireList(db, customerId, listRaw);
    await db.transaction().execute(async (trx) => {
      if (subscribed)
        await bumpSubscriberCount(trx, list.id, await addMembers(trx, list.id, [row.id], now), now);
      if (!(await setMemberUnsubscribed(trx, list.id, row.id, !subscribed, now)))
        throw new AppError(
          'marketing.not_a_member',
          `subscriber ${row.id} is not on subscription list ${list.id}`,
        );
    });
  }
  return subscriberOf(ctx, customerId, row.id);
}

/**
 * True when mail from the account must not go to this address: the subscriber unsubscribed globally or, when a list is
 * named, unsubscribed from that list. An address that is not a subscriber is not suppressed.
 */
export async function isSuppressed(
  ctx: AppContext,
  customerId: number,
  email: string,
  listId?: number,
): Promise<boolean> {
  const db = ctx.database.reader;
  const row = await findByEmailKey(db, customerId, email.trim().toLowerCase());
  if (!row) return false;
  if (row.unsubscribed === 1) return true;
  if (listId === undefined) return false;
  return (await findMembership(db, listId, row.id))?.unsubscribed === 1;
}

/** How memberships are written: `addMembers`, or a bulk writer with the same contract. */
export type MemberWriter = (
  db: Queryable,
  listId: number,
  subscriberIds: number[],
  now: number,
) => Promise<number>;

/** Puts subscribers on the default list and on `listId` (when given), raising each list's counter by those added. */
export async function joinLists(
  db: Queryable,
  customerId: number,
  ids: number[],
  listId: number | null,
  now: number,
  add: MemberWriter = addMembers,
): Promise<void> {
  const def = await ensureDefaultList(db, customerId, now);
  await bumpSubscriberCount(db, def.id, await add(db, def.id, ids, now), now);
  if (listId !== null && listId !== def.id)
    await bumpSubscriberCount(db, listId, await add(db, listId, ids, now), now);
}

/** Stores custom field values of one subscriber, creating the account's field types as needed. */
export async function setFields(
  db: Queryable,
  customerId: number,
  subscriberId: number,
  fields: CustomFieldInput[] | undefined,
  now: number,
): Promise<void> {
  const normal = normalFields(fields);
  if (normal.size === 0) return;
  const types = await ensureFieldTypes(
    db,
    customerId,
    new Map([...normal].map(([k, f]) => [k, f.name])),
    now,
  );
  await upsertFieldValues(
    db,
    [...normal].map(([k, f]) => ({
      subscriber_id: subscriberId,
      field_type_id: types.get(k)!,
      value: f.value,
    })),
  );
}

async function refuseTaken(db: Queryable, customerId: number, emailKey: string): Promise<void> {
  const existing = await findByEmailKey(db, customerId, emailKey);
  if (existing)
    throw new AppError(
      'marketing.subscriber_exists',
      existing.email
        ? `a subscriber with the email ${existing.email} already exists`
        : `a subscriber with the phone number ${existing.phone_number} already exists`,
      {
        extra: { subscriber_id: existing.uuid },
      },
    );
}
