/** SQL for subscribers: the rows, their list memberships with the lists' member counters, and custom field values. */
import { queueConfirmations } from './confirmations.repository.ts';
import {
  sql,
  type Insertable,
  type RawBuilder,
  type Selectable,
  type SqlBool,
  type Updateable,
} from 'kysely';
import type { Queryable, SubscribersTable } from '../../db/types.ts';

export type SubscriberRow = Selectable<SubscribersTable>;

/** Rows per statement when a request names many subscribers (keeps under every dialect's parameter limit). */
const CHUNK = 500;

/** Sort keys of the subscribers list. */
export type SubscriberOrder = 'first_name' | 'last_name' | 'email' | 'created_at' | 'updated_at';

/** Which subscribers a list or count takes. */
export interface SubscriberMatch {
  /** Words that must each appear in the email, first name or last name (letter case ignored). */
  words: string[];
  listId: number | null;
  /** Only globally unsubscribed subscribers (true) or only the others (false). */
  unsubscribed?: boolean;
  /** A segment condition over alias `s` (see segments/filters.ts). */
  filter?: RawBuilder<SqlBool>;
  /** Only these subscribers (integer keys). */
  only?: number[];
  /** Not these subscribers (integer keys). */
  except?: number[];
}

/** One page of the subscribers list. */
export interface SubscriberPageQuery extends SubscriberMatch {
  limit: number;
  offset: number;
  orderBy: SubscriberOrder;
  direction: 'asc' | 'desc';
}

/** One subscriber of an account. */
export async function findSubscriber(
  db: Queryable,
  customerId: number,
  id: number,
): Promise<SubscriberRow | undefined> {
  return db
    .selectFrom('subscribers')
    .selectAll()
    .where('id', '=', id)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
}

/** The subscriber of an account with this lower-cased email. */
export async function findByEmailKey(
  db: Queryable,
  customerId: number,
  emailKey: string,
): Promise<SubscriberRow | undefined> {
  return db
    .selectFrom('subscribers')
    .selectAll()
    .where('customer_id', '=', customerId)
    .where('email_key', '=', emailKey)
    .executeTakeFirst();
}

/** The subscribers of an account with any of these lower-cased emails, by email key. */
export async function findByEmailKeys(
  db: Queryable,
  customerId: number,
  keys: string[],
): Promise<Map<string, SubscriberRow>> {
  const out = new Map<string, SubscriberRow>();
  for (let i = 0; i < keys.length; i += CHUNK) {
    const rows = await db
      .selectFrom('subscribers')
      .selectAll()
      .where('customer_id', '=', customerId)
      .where('email_key', 'in', keys.slice(i, i + CHUNK))
      .execute();
    for (const r of rows) out.set(r.email_key, r);
  }
  return out;
}

/** Inserts a subscriber; returns its id. */
export async function insertSubscriber(db: Queryable, row: Insertable<SubscribersTable>): Promise<number> {
  const r = await db.insertInto('subscribers').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(r.id);
}

/** Changes a subscriber. */
export async function updateSubscriber(
  db: Queryable,
  id: number,
  patch: Updateable<SubscribersTable>,
): Promise<void> {
  await db.updateTable('subscribers').set(patch).where('id', '=', id).execute();
}

function matching(db: Queryable, customerId: number, q: SubscriberMatch, byId = false) {
  // Walking by id, `+ 0` keeps the planner on the primary key instead of the (customer, created_at) index and a sort.
  let query = db
    .selectFrom('subscribers as s')
    .where(byId ? sql`s.customer_id + 0` : sql.ref('s.customer_id'), '=', customerId);
  if (q.listId !== null) {
    const listId = q.listId;
    query = query.innerJoin('subscription_list_members as m', (j) =>
      j.onRef('m.subscriber_id', '=', 's.id').on('m.list_id', '=', listId),
    );
  }
  if (q.unsubscribed !== undefined) query = query.where('s.unsubscribed', '=', q.unsubscribed ? 1 : 0);
  for (const word of q.words) {
    const pattern = `%${word.toLowerCase()}%`;
    query = query.where((eb) =>
      eb.or([
        eb(eb.fn('lower', ['s.email']), 'like', pattern),
        eb(eb.fn('lower', [eb.fn.coalesce('s.first_name', sql.lit(''))]), 'like', pattern),
        eb(eb.fn('lower', [eb.fn.coalesce('s.last_name', sql.lit(''))]), 'like', pattern),
      ]),
    );
  }
  if (q.filter) query = query.where(q.filter);
  if (q.only) query = q.only.length ? query.where('s.id', 'in', q.only) : query.where(sql.lit(false));
  if (q.except?.length) query = query.where('s.id', 'not in', q.except);
  return query;
}

/** One page of an account's subscribers, optionally of one list, filtered by search words and a segment condition. */
export async function pageOfSubscribers(
  db: Queryable,
  customerId: number,
  q: SubscriberPageQuery,
): Promise<SubscriberRow[]> {
  return matching(db, customerId, q)
    .selectAll('s')
    .orderBy(`s.${q.orderBy}`, q.direction)
    .orderBy('s.id', q.direction)
    .limit(q.limit)
    .offset(q.offset)
    .execute();
}

/** How many subscribers match (the same filters as a page). */
export async function countSubscribers(
  db: Queryable,
  customerId: number,
  q: SubscriberMatch,
): Promise<number> {
  const r = await matching(db, customerId, q)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Adds subscribers to a list (those already on it stay as they are); returns how many were added. */
export async function addMembers(
  db: Queryable,
  listId: number,
  subscriberIds: number[],
  now: number,
): Promise<number> {
  let added = 0;
  for (let i = 0; i < subscriberIds.length; i += CHUNK) {
    const rows = subscriberIds.slice(i, i + CHUNK).map((id) => ({
      list_id: listId,
      subscriber_id: id,
      unsubscribed: 0,
      created_at: now,
      updated_at: now,
    }));
    const res = await db
      .insertInto('subscription_list_members')
      .values(rows)
      .onConflict((oc) => oc.columns(['list_id', 'subscriber_id']).doNothing())
      .executeTakeFirst();
    added += Number(res.numInsertedOrUpdatedRows ?? 0);
  }
  if (added > 0) await queueConfirmations(db, listId, now);
  return added;
}

/** Sets the unsubscribed flag of one membership; returns whether the membership exists. */
export async function setMemberUnsubscribed(
  db: Queryable,
  listId: number,
  subscriberId: number,
  unsubscribed: boolean,
  now: number,
): Promise<boolean> {
  const res = await db
    .updateTable('subscription_list_members')
    .set({ unsubscribed: unsubscribed ? 1 : 0, updated_at: now })
    .where('list_id', '=', listId)
    .where('subscriber_id', '=', subscriberId)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** The membership of a subscriber in a list, if any. */
export async function findMembership(db: Queryable, listId: number, subscriberId: number) {
  return db
    .selectFrom('subscription_list_members')
    .select(['unsubscribed'])
    .where('list_id', '=', listId)
    .where('subscriber_id', '=', subscriberId)
    .executeTakeFirst();
}

/** The lists a subscriber is on, with the membership's unsubscribed flag. */
export async function listsOfSubscriber(db: Queryable, subscriberId: number) {
  return db
    .selectFrom('subscription_list_members as m')
    .innerJoin('subscription_lists as l', 'l.id', 'm.list_id')
    .select(['l.id', 'l.uuid', 'l.name', 'm.unsubscribed'])
    .where('m.subscriber_id', '=', subscriberId)
    .orderBy('l.is_default', 'desc')
    .orderBy('l.id')
    .execute();
}

/** Removes subscribers from one list; returns how many memberships went. */
export async function removeMembers(db: Queryable, listId: number, subscriberIds: number[]): Promise<number> {
  let removed = 0;
  for (let i = 0; i < subscriberIds.length; i += CHUNK) {
    const res = await db
      .deleteFrom('subscription_list_members')
      .where('list_id', '=', listId)
      .where('subscriber_id', 'in', subscriberIds.slice(i, i + CHUNK))
      .executeTakeFirst();
    removed += Number(res.numDeletedRows);
  }
  return removed;
}

/** How many of these subscribers each list holds (to lower the counters before the subscribers are deleted). */
export async function membershipCounts(db: Queryable, subscriberIds: number[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  for (let i = 0; i < subscriberIds.length; i += CHUNK) {
    const rows = await db
      .selectFrom('subscription_list_members')
      .select((eb) => ['list_id', eb.fn.countAll<number>().as('n')])
      .where('subscriber_id', 'in', subscriberIds.slice(i, i + CHUNK))
      .groupBy('list_id')
      .execute();
    for (const r of rows) out.set(Number(r.list_id), (out.get(Number(r.list_id)) ?? 0) + Number(r.n));
  }
  return out;
}

/** Deletes subscribers of an account with their memberships and custom field values; returns the ids deleted. */
export async function deleteSubscribers(db: Queryable, customerId: number, ids: number[]): Promise<void> {
  for (let i = 0; i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK);
    await db.deleteFrom('subscription_list_members').where('subscriber_id', 'in', chunk).execute();
    await db.deleteFrom('subscriber_custom_field_values').where('subscriber_id', 'in', chunk).execute();
    await db
      .deleteFrom('subscribers')
      .where('customer_id', '=', customerId)
      .where('id', 'in', chunk)
      .execute();
  }
}

/** The next `limit` subscribers after id `after` that match, in id order: one step of a keyset walk (exports). */
export async function subscribersAfter(
  db: Queryable,
  customerId: number,
  q: SubscriberMatch,
  after: number,
  limit: number,
): Promise<SubscriberRow[]> {
  return matching(db, customerId, q, true)
    .selectAll('s')
    .where('s.id', '>', after)
    .orderBy('s.id')
    .limit(limit)
    .execute();
}

/** Whether a subscriber unsubscribed from everything. */
export async function findSubscriberState(
  db: Queryable,
  id: number,
): Promise<{ unsubscribed: number } | undefined> {
  return db.selectFrom('subscribers').select('unsubscribed').where('id', '=', id).executeTakeFirst();
}

/** Whether a subscriber unsubscribed from one list. */
export async function findMembershipState(
  db: Queryable,
  listId: number,
  subscriberId: number,
): Promise<{ unsubscribed: number } | undefined> {
  return db
    .selectFrom('subscription_list_members')
    .select('unsubscribed')
    .where('list_id', '=', listId)
    .where('subscriber_id', '=', subscriberId)
    .executeTakeFirst();
}

/** Unsubscribes a subscriber from everything the account sends; false when it already was. */
export async function unsubscribeEverywhere(db: Queryable, id: number, now: number): Promise<boolean> {
  const r = await db
    .updateTable('subscribers')
    .set({ unsubscribed: 1, unsubscribed_at: now, updated_at: now })
    .where('id', '=', id)
    .where('unsubscribed', '=', 0)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Unsubscribes a subscriber from one list; false when it already was (or is not a member). */
export async function unsubscribeFromList(
  db: Queryable,
  listId: number,
  subscriberId: number,
  now: number,
): Promise<boolean> {
  const r = await db
    .updateTable('subscription_list_members')
    .set({ unsubscribed: 1, updated_at: now })
    .where('list_id', '=', listId)
    .where('subscriber_id', '=', subscriberId)
    .where('unsubscribed', '=', 0)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}
