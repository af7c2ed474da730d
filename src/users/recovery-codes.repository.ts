/** SQL of two-factor recovery codes: a user's set (hashes only), replaced whole, each code taken once. */
import type { Queryable } from '../db/types.ts';

/** A stored code that still works. */
export interface UnusedCode {
  id: string;
  code_hash: string;
}

/** Replaces the user's codes with new ones (hashes given), in one transaction: the old set ends with it. */
export async function replaceRecoveryCodes(
  db: Queryable,
  userId: string,
  rows: { id: string; lookup: string; code_hash: string }[],
  now: number,
): Promise<void> {
  const write = async (trx: Queryable) => {
    await trx.deleteFrom('user_recovery_codes').where('user_id', '=', userId).execute();
    if (rows.length)
      await trx
        .insertInto('user_recovery_codes')
        .values(rows.map((r) => ({ ...r, user_id: userId, created_at: now, used_at: null })))
        .execute();
  };
  if (db.isTransaction) await write(db);
  else await db.transaction().execute(write);
}

/** The user's codes that were not used yet and begin with `lookup`. */
export async function selectUnusedRecoveryCodes(
  db: Queryable,
  userId: string,
  lookup: string,
): Promise<UnusedCode[]> {
  return db
    .selectFrom('user_recovery_codes')
    .select(['id', 'code_hash'])
    .where('user_id', '=', userId)
    .where('lookup', '=', lookup)
    .where('used_at', 'is', null)
    .execute();
}

/** How many of the user's codes still work. */
export async function countUnusedRecoveryCodes(db: Queryable, userId: string): Promise<number> {
  const row = await db
    .selectFrom('user_recovery_codes')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Marks a code used; false when it already was (two requests racing with one code: only one takes it). */
export async function takeRecoveryCode(db: Queryable, id: string, now: number): Promise<boolean> {
  const res = await db
    .updateTable('user_recovery_codes')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Removes all of the user's codes (two-factor turned off). */
export async function deleteRecoveryCodes(db: Queryable, userId: string): Promise<void> {
  await db.deleteFrom('user_recovery_codes').where('user_id', '=', userId).execute();
}
