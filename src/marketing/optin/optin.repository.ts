/**
 * SQL of double opt-in and the public preference page: a list's settings, the members still waiting for their
 * confirmation email, the one-use confirmation link (only its hash is stored), and the confirmation itself.
 */
import type { Queryable } from '../../db/types.ts';

/** A list by id alone (work rows name lists without their account). */
export async function findListById(db: Queryable, listId: number) {
  return db.selectFrom('subscription_lists').selectAll().where('id', '=', listId).executeTakeFirst();
}

/** Stores a list's double opt-in and preference-page settings. */
export async function saveListOptIn(
  db: Queryable,
  listId: number,
  set: { doubleOptIn: boolean; fromEmail: string | null; public: boolean },
  now: number,
): Promise<void> {
  await db
    .updateTable('subscription_lists')
    .set({
      double_opt_in: set.doubleOptIn ? 1 : 0,
      confirm_from_email: set.fromEmail,
      public: set.public ? 1 : 0,
      updated_at: now,
    })
    .where('id', '=', listId)
    .execute();
}

/** Counts the members a list already had as confirmed (done when the list starts asking for confirmation). */
export async function confirmExisting(db: Queryable, listId: number, now: number): Promise<void> {
  await db
    .updateTable('subscription_list_members')
    .set({ confirmed_at: now })
    .where('list_id', '=', listId)
    .where('confirmed_at', 'is', null)
    .execute();
}

/** A member that still needs its confirmation email. */
export interface PendingMember {
  subscriber_id: number;
  email: string;
}

/** Up to `limit` members of a double opt-in list that are unconfirmed, subscribed and not yet sent a confirmation. */
export async function membersToConfirm(
  db: Queryable,
  listId: number,
  limit: number,
): Promise<PendingMember[]> {
  return db
    .selectFrom('subscription_list_members as m')
    .innerJoin('subscribers as s', 's.id', 'm.subscriber_id')
    .select(['m.subscriber_id', 's.email'])
    .where('m.list_id', '=', listId)
    .where('m.confirmed_at', 'is', null)
    .where('m.confirm_sent_at', 'is', null)
    .where('m.unsubscribed', '=', 0)
    .where('s.unsubscribed', '=', 0)
    .orderBy('m.subscriber_id')
    .limit(limit)
    .execute();
}

/**
 * Claims a member's confirmation email, recording its link (the hash of its nonce and when it expires); false when
 * another worker claimed it first, so no member gets two.
 */
export async function claimConfirmation(
  db: Queryable,
  listId: number,
  subscriberId: number,
  hash: string,
  expiresAt: number,
  now: number,
): Promise<boolean> {
  const r = await db
    .updateTable('subscription_list_members')
    .set({ confirm_hash: hash, confirm_expires_at: expiresAt, confirm_sent_at: now })
    .where('list_id', '=', listId)
    .where('subscriber_id', '=', subscriberId)
    .where('confirm_sent_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Gives a claim back when its email could not be submitted (the work row's retry sends it). */
export async function releaseConfirmation(
  db: Queryable,
  listId: number,
  subscriberId: number,
): Promise<void> {
  await db
    .updateTable('subscription_list_members')
    .set({ confirm_hash: null, confirm_expires_at: null, confirm_sent_at: null })
    .where('list_id', '=', listId)
    .where('subscriber_id', '=', subscriberId)
    .execute();
}

/** The membership a confirmation link's hash belongs to, with what the confirm page shows. */
export async function findByConfirmHash(db: Queryable, hash: string) {
  return db
    .selectFrom('subscription_list_members as m')
    .innerJoin('subscribers as s', 's.id', 'm.subscriber_id')
    .innerJoin('subscription_lists as l', 'l.id', 'm.list_id')
    .select([
      'm.list_id',
      'm.subscriber_id',
      'm.confirm_expires_at',
      'm.confirmed_at',
      's.email',
      's.customer_id',
      'l.name as list_name',
    ])
    .where('m.confirm_hash', '=', hash)
    .executeTakeFirst();
}

/**
 * Confirms the membership a link belongs to; false when it was confirmed or expired meanwhile. The hash stays, so a
 * second click finds the membership and can say it is already confirmed.
 */
export async function confirmByHash(db: Queryable, hash: string, now: number): Promise<boolean> {
  const r = await db
    .updateTable('subscription_list_members')
    .set({ confirmed_at: now, updated_at: now })
    .where('confirm_hash', '=', hash)
    .where('confirmed_at', 'is', null)
    .where('confirm_expires_at', '>', now)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Confirms one membership at once (a subscriber who joined from the preference page proved the address). */
export async function confirmMember(db: Queryable, listId: number, subscriberId: number, now: number) {
  await db
    .updateTable('subscription_list_members')
    .set({ confirmed_at: now, confirm_hash: null })
    .where('list_id', '=', listId)
    .where('subscriber_id', '=', subscriberId)
    .where('confirmed_at', 'is', null)
    .execute();
}

/** The lists the preference page offers a subscriber: the account's public lists and every list it is on. */
export async function preferenceLists(db: Queryable, customerId: number, subscriberId: number) {
  return db
    .selectFrom('subscription_lists as l')
    .leftJoin('subscription_list_members as m', (j) =>
      j.onRef('m.list_id', '=', 'l.id').on('m.subscriber_id', '=', subscriberId),
    )
    .select([
      'l.id',
      'l.uuid',
      'l.name',
      'l.public',
      'l.is_default',
      'm.subscriber_id as member',
      'm.unsubscribed',
    ])
    .where('l.customer_id', '=', customerId)
    .where((eb) => eb.or([eb('l.public', '=', 1), eb('m.subscriber_id', 'is not', null)]))
    .orderBy('l.is_default', 'desc')
    .orderBy('l.id')
    .execute();
}

/** The subscriber a delivery went to, with its account and global opt-out. */
export async function subscriberOfDelivery(db: Queryable, subscriberId: number) {
  return db
    .selectFrom('subscribers')
    .select(['id', 'customer_id', 'email', 'unsubscribed'])
    .where('id', '=', subscriberId)
    .executeTakeFirst();
}

/** Which of these subscribers are unconfirmed members of a double opt-in list. */
export async function unconfirmedAmong(
  db: Queryable,
  listId: number,
  subscriberUuids: string[],
): Promise<string[]> {
  if (subscriberUuids.length === 0) return [];
  const rows = await db
    .selectFrom('subscription_list_members as m')
    .innerJoin('subscription_lists as l', 'l.id', 'm.list_id')
    .innerJoin('subscribers as s', 's.id', 'm.subscriber_id')
    .select('s.uuid')
    .where('m.list_id', '=', listId)
    .where('l.double_opt_in', '=', 1)
    .where('m.confirmed_at', 'is', null)
    .where('s.uuid', 'in', subscriberUuids)
    .execute();
  return rows.map((r) => r.uuid);
}
