/** SQL of console users and their one-time links. */
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Queryable, UsersTable, UserTokensTable } from '../db/types.ts';

/** A stored user. */
export type UserRow = Selectable<UsersTable>;
/** A stored one-time link. */
export type UserTokenRow = Selectable<UserTokensTable>;

/** Inserts a user. */
export async function insertUser(db: Queryable, row: Insertable<UsersTable>): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

/** A user by email (lower-cased). */
export async function findUserByEmail(db: Queryable, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

/** A user by id. */
export async function findUserById(db: Queryable, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Records `step` as the user's last accepted TOTP step unless that step or a later one was taken already; true when taken now. */
export async function takeTotpStep(db: Queryable, id: string, step: number): Promise<boolean> {
  const res = await db
    .updateTable('users')
    .set({ totp_last_step: step })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Users of one account, or of every account when `customerId` is undefined, by email. */
export async function listUsers(db: Queryable, customerId?: number): Promise<UserRow[]> {
  let q = db.selectFrom('users').selectAll();
  if (customerId !== undefined) q = q.where('customer_id', '=', customerId);
  return q.orderBy('customer_id').orderBy('email').execute();
}

/** Enabled owners of an account. */
export async function countEnabledOwners(db: Queryable, customerId: number): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('customer_id', '=', customerId)
    .where('role', '=', 'owner')
    .where('disabled_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Changes columns of a user. */
export async function updateUser(db: Queryable, id: string, changes: Updateable<UsersTable>): Promise<void> {
  await db.updateTable('users').set(changes).where('id', '=', id).execute();
}

/** Inserts a one-time link. */
export async function insertUserToken(db: Queryable, row: Insertable<UserTokensTable>): Promise<void> {
  await db.insertInto('user_tokens').values(row).execute();
}

/** Ends every unused link of a user (marked used at `now`), so only a link issued after this works. */
export async function revokeUserTokens(db: Queryable, userId: string, now: number): Promise<void> {
  await db
    .updateTable('user_tokens')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .execute();
}

/** Marks an unused, unexpired link used; returns it, or undefined when it was not usable. */
export async function consumeUserToken(
  db: Queryable,
  id: string,
  now: number,
): Promise<UserTokenRow | undefined> {
  const res = await db
    .updateTable('user_tokens')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) return undefined;
  return db.selectFrom('user_tokens').selectAll().where('id', '=', id).executeTakeFirst();
}

/** An unused, unexpired link, without using it. */
export async function findUsableUserToken(
  db: Queryable,
  id: string,
  now: number,
): Promise<UserTokenRow | undefined> {
  return db
    .selectFrom('user_tokens')
    .selectAll()
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/** Removes links used or expired before `before`. */
export async function deleteSpentUserTokens(db: Queryable, before: number): Promise<number> {
  const res = await db
    .deleteFrom('user_tokens')
    .where((eb) => eb.or([eb('used_at', '<', before), eb('expires_at', '<', before)]))
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}
