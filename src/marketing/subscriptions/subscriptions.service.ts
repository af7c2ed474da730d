/**
 * Subscriptions: a subscriber's membership of a list, as a record with its own id (a UUID; the older
 * `<list id>-<subscriber id>` form is still read).
 * Creating one puts the subscriber on the list (which starts drips triggered by `subscription_created`); deleting one
 * stamps the list-level opt-out and keeps the record. Subscribe and unsubscribe take many subscribers: with list ids
 * they change those memberships, without them the global opt-out. Subscribing always clears the global opt-out.
 */
import { Readable } from 'node:stream';
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/types.ts';
import { AppError } from '../../errors/app-error.ts';
import { bumpSubscriberCount, requireList } from '../lists/lists.service.ts';
import { parseId, parseRef } from '../ids.ts';
import { resolveIds } from '../ids.repository.ts';
import { pageAsked, pagedAnswer } from '../paging.ts';
import { parseFilters } from '../segments/filters.ts';
import { allOf, filterSql, filtersOf, onList, requireDynamicList } from '../segments/segments.service.ts';
import { addMembers, findSubscriber } from '../subscribers/rows.service.ts';
import { shortView } from '../subscribers/subscriber-views.ts';
import { requireSubscriber } from '../subscribers/subscribers.service.ts';
import {
  countSubscriptions,
  findSubscription,
  listSubscriptions,
  setGlobalOptOut,
  setGlobalOptOutWhere,
  setListOptOut,
  subscriptionsAfter,
} from './subscriptions.repository.ts';

/** Sets or clears subscribers' global opt-out inside the caller's transaction (the preference page). */
export { setGlobalOptOut } from './subscriptions.repository.ts';

type Membership = {
  id: number | string;
  uuid: string;
  list_id: number | string;
  subscriber_id: number | string;
  unsubscribed: number;
  confirmed_at?: number | null;
  double_opt_in: number;
  created_at: number;
  updated_at: number;
};

const iso = (ms: number | string) => new Date(Number(ms)).toISOString();

/** A subscription as shown: the reference's flat record, plus `confirmed` for double opt-in lists. */
function view(m: Membership) {
  const out = Number(m.unsubscribed) === 1;
  return {
    id: Number(m.id),
    uuid: m.uuid,
    subscription_list_id: Number(m.list_id),
    // Memberships here are always of subscription lists; dynamic lists have no stored members.
    dynamic_list_id: null,
    subscriber_id: Number(m.subscriber_id),
    unsubscribed_at: out ? iso(m.updated_at) : null,
    // Records are kept, never scheduled for deletion.
    delete_at: null,
    created_at: iso(m.created_at),
    updated_at: iso(m.updated_at),
    // False while the member of a double opt-in list has not confirmed (it receives no campaign until then).
    confirmed: Number(m.double_opt_in) === 0 || (m.confirmed_at ?? null) !== null,
  };
}

/** How many subscriptions one batch of a full read holds. */
const BATCH = 500;
/** The most subscriber ids one request names. */
const MAX_IDS = 5000;

const notFound = (raw: string) =>
  new AppError('marketing.subscription_not_found', `subscription ${raw} was not found`);

async function requireSubscription(ctx: AppContext, customerId: number, raw: string) {
  const ref = parseRef(raw);
  const [listRaw, subRaw] = raw.split('-');
  const listId = parseId(listRaw);
  const subscriberId = parseId(subRaw);
  const by =
    ref !== null && 'uuid' in ref
      ? { uuid: ref.uuid }
      : listId !== null && subscriberId !== null && raw.split('-').length === 2
        ? { listId, subscriberId }
        : null;
  const row = by === null ? undefined : await findSubscription(ctx.database.db, customerId, by);
  if (!row) throw notFound(raw);
  return row;
}

/**
 * `GET /subscriptions`: one page when asked for, else every subscription of the account as a JSON stream
 * (`{"data":[...]}`), read in keyset batches so memory does not grow with the account.
 */
export async function subscriptionsOf(
  ctx: AppContext,
  customerId: number,
  q: { use_pagination?: boolean; page?: number; items?: number },
) {
  const page = pageAsked(q);
  const db = ctx.database.reader;
  if (!page) return Readable.from(allSubscriptionsJson(db, customerId));
  const [rows, total] = await Promise.all([
    listSubscriptions(db, customerId, page.limit, page.offset),
    countSubscriptions(db, customerId),
  ]);
  return pagedAnswer(rows.map(view), page, total);
}

async function* allSubscriptionsJson(db: Queryable, customerId: number): AsyncGenerator<string> {
  yield '{"data":[';
  let after = 0;
  let first = true;
  for (;;) {
    const rows = await subscriptionsAfter(db, customerId, after, BATCH);
    if (rows.length === 0) break;
    const items = rows.map((r) => JSON.stringify(view(r))).join(',');
    yield first ? items : `,${items}`;
    first = false;
    after = Number(rows[rows.length - 1]!.id);
  }
  yield ']}';
}

/** `GET /subscriptions/<id>`. */
export async function subscriptionOf(ctx: AppContext, customerId: number, raw: string) {
  return { data: view(await requireSubscription(ctx, customerId, raw)) };
}

/**
 * `POST /subscriptions`: puts an existing subscriber on an existing list. As in the reference, a request that fails
 * validation (an id missing or unknown, the subscriber already on the list) changes nothing and answers
 * `{errors: [...]}` with status 200.
 */
export async function createSubscription(
  ctx: AppContext,
  customerId: number,
  body: { subscription_list_id?: string | number; subscriber_id?: string | number } | undefined,
): Promise<{ data: ReturnType<typeof view> } | { errors: string[] }> {
  const db = ctx.database.db;
  const missing = (['subscription_list_id', 'subscriber_id'] as const).filter(
    (k) => body?.[k] === undefined || body[k] === '',
  );
  if (missing.length > 0) return { errors: missing.map((k) => `${k} is required`) };
  const found = await listAndSubscriber(ctx, customerId, body!.subscription_list_id!, body!.subscriber_id!);
  if (found.errors) return { errors: found.errors };
  const { list, subscriber } = found;
  const now = Date.now();
  const added = await db.transaction().execute(async (trx) => {
    const n = await addMembers(trx, list.id, [subscriber.id], now);
    await bumpSubscriberCount(trx, list.id, n, now);
    return n;
  });
  if (added === 0)
    return {
      errors: [`subscriber ${subscriber.uuid} is already subscribed to subscription list ${list.uuid}`],
    };
  const row = (await findSubscription(db, customerId, { listId: list.id, subscriberId: subscriber.id }))!;
  return { data: view(row) };
}

/** The list and subscriber a create names, or the readable messages of those that are not found. */
async function listAndSubscriber(
  ctx: AppContext,
  customerId: number,
  listRaw: string | number,
  subscriberRaw: string | number,
) {
  const db = ctx.database.db;
  const errors: string[] = [];
  const readable = (e: unknown) => {
    if (!(e instanceof AppError)) throw e;
    errors.push(e.message);
    return null;
  };
  const list = await requireList(db, customerId, listRaw).catch(readable);
  const subscriber = await requireSubscriber(db, customerId, subscriberRaw).catch(readable);
  if (!list || !subscriber) return { errors };
  return { list, subscriber };
}

/** `DELETE /subscriptions/<id>`: the list-level opt-out; the record stays. */
export async function deleteSubscription(ctx: AppContext, customerId: number, raw: string) {
  const row = await requireSubscription(ctx, customerId, raw);
  await setListOptOut(ctx.database.db, [Number(row.subscriber_id)], [Number(row.list_id)], true, Date.now());
  return subscriptionOf(ctx, customerId, raw);
}

/** `POST /subscriptions/subscribe` (`subscribed` true) and `/unsubscribe`. */
export async function changeSubscriptions(
  ctx: AppContext,
  customerId: number,
  body: { subscriber_ids?: (string | number)[]; subscription_list_ids?: (string | number)[] | null },
  subscribed: boolean,
) {
  const db = ctx.database.db;
  const raw = body.subscriber_ids ?? [];
  if (raw.length === 0 || raw.length > MAX_IDS)
    throw new AppError('request.invalid', `subscriber_ids must name 1 to ${MAX_IDS} subscribers`, {
      details: [{ field: 'subscriber_ids', message: `must name 1 to ${MAX_IDS} subscribers` }],
    });
  const subscribers = [];
  for (const r of raw) subscribers.push(await requireSubscriber(db, customerId, r));
  const ids = subscribers.map((s) => s.id);
  const lists: number[] = [];
  for (const r of body.subscription_list_ids ?? []) lists.push((await requireList(db, customerId, r)).id);
  const now = Date.now();
  await db.transaction().execute(async (trx) => {
    if (lists.length > 0) await setListOptOut(trx, ids, lists, !subscribed, now);
    if (subscribed || lists.length === 0) await setGlobalOptOut(trx, customerId, ids, !subscribed, now);
  });
  const fresh = await Promise.all(ids.map((id) => findSubscriber(db, customerId, id)));
  return { data: fresh.filter((s) => s !== undefined).map(shortView) };
}

/**
 * `POST /subscriptions/bulk_global_subscribe|unsubscribe` and `dynamic_bulk_...`: with `subscriber_ids`, the same as
 * subscribe or unsubscribe without lists; otherwise every subscriber of `from_subscription_list_id` (a subscription list,
 * or for the dynamic forms a dynamic list) matching `filters`, minus `except_ids`, changed in one statement.
 */
export async function bulkGlobal(
  ctx: AppContext,
  customerId: number,
  body: {
    subscriber_ids?: (string | number)[];
    from_subscription_list_id?: string | number;
    filters?: unknown;
    except_ids?: (string | number)[];
  },
  subscribed: boolean,
  dynamic: boolean,
) {
  if (body.subscriber_ids && body.subscriber_ids.length > 0)
    return changeSubscriptions(ctx, customerId, { subscriber_ids: body.subscriber_ids }, subscribed);
  const db = ctx.database.db;
  if (body.from_subscription_list_id === undefined)
    throw new AppError('request.invalid', 'from_subscription_list_id is required without subscriber_ids', {
      details: [{ field: 'from_subscription_list_id', message: 'is required without subscriber_ids' }],
    });
  const now = Date.now();
  let condition;
  if (dynamic) {
    condition = filterSql(
      filtersOf(await requireDynamicList(db, customerId, body.from_subscription_list_id)),
      customerId,
      now,
    );
  } else {
    const list = await requireList(db, customerId, body.from_subscription_list_id);
    condition = allOf(onList(list.id), filterSql(parseFilters(body.filters ?? []), customerId, now));
  }
  const except = await resolveIds(db, 'subscribers', customerId, body.except_ids ?? []);
  const changed = await setGlobalOptOutWhere(db, customerId, condition, except, !subscribed, now);
  return { data: { num_subscribers_updated: changed } };
}
