/** SQL of sign-in throttles: failure counts per email address and per client IP, shared by every node through the database. */
import { sql } from 'kysely';
import type { Queryable } from '../db/types.ts';

/** The lock of a key, if it is locked at `now`. */
export async function lockedUntil(db: Queryable, keys: string[], now: number): Promise<number | undefined> {
  const rows = await db
    .selectFrom('sign_in_throttles')
    .select('locked_until')
    .where('key', 'in', keys)
    .where('locked_until', '>', now)
    .execute();
  const ends = rows.map((r) => Number(r.locked_until));
  return ends.length ? Math.max(...ends) : undefined;
}

/**
 * Counts one attempt or failure for a key (a new window when the last began before `windowStart`) in one statement,
 * so concurrent callers each get a distinct count; returns the count in the window, this one included.
 */
export async function countFailure(
  db: Queryable,
  key: string,
  now: number,
  windowStart: number,
): Promise<number> {
  const row = await db
    .insertInto('sign_in_throttles')
    .values({ key, window_start: now, failures: 1, locked_until: null })
    .onConflict((oc) =>
      oc.column('key').doUpdateSet({
        failures: sql`case when sign_in_throttles.window_start < ${windowStart} then 1 else sign_in_throttles.failures + 1 end`,
        window_start: sql`case when sign_in_throttles.window_start < ${windowStart} then ${now} else sign_in_throttles.window_start end`,
      }),
    )
    .returning('failures')
    .executeTakeFirst();
  return Number(row?.failures ?? 0);
}

/** Takes back one counted attempt of a key (one that turned out right), so right answers never add up to a lock. */
export async function uncountAttempt(db: Queryable, key: string): Promise<void> {
  await db
    .updateTable('sign_in_throttles')
    .set({ failures: sql`sign_in_throttles.failures - 1` })
    .where('key', '=', key)
    .where('failures', '>', 0)
    .execute();
}

/** Locks a key until `until`. */
export async function lockKey(db: Queryable, key: string, until: number): Promise<void> {
  await db.updateTable('sign_in_throttles').set({ locked_until: until }).where('key', '=', key).execute();
}

/** Forgets the failures of a key (after a successful sign-in). */
export async function clearKey(db: Queryable, key: string): Promise<void> {
  await db.deleteFrom('sign_in_throttles').where('key', '=', key).execute();
}

/** Removes throttles whose window and lock are both over; called by the retention job. */
export async function deleteOldThrottles(db: Queryable, before: number): Promise<number> {
  const res = await db
    .deleteFrom('sign_in_throttles')
    .where('window_start', '<', before)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', before)]))
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}
