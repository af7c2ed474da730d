/** SQL of secrets shown once: the row per one-time page, keyed by the hash of its token. */
import type { Insertable, Selectable } from 'kysely';
import type { ConsoleRevealsTable, Queryable } from '../db/types.ts';

/** A stored one-time page. */
export type RevealRow = Selectable<ConsoleRevealsTable>;

/** Inserts a one-time page. */
export async function insertReveal(db: Queryable, row: Insertable<ConsoleRevealsTable>): Promise<void> {
  await db.insertInto('console_reveals').values(row).execute();
}

/** A one-time page by id (the token's hash). */
export async function findReveal(db: Queryable, id: string): Promise<RevealRow | undefined> {
  return db.selectFrom('console_reveals').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Marks a page shown and drops its secret; true only for the one request that did so. */
export async function markRevealShown(db: Queryable, id: string, now: number): Promise<boolean> {
  const res = await db
    .updateTable('console_reveals')
    .set({ shown_at: now, sealed: null })
    .where('id', '=', id)
    .where('shown_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Drops the secrets of pages past their end, and the rows made before `cutoff`. */
export async function purgeReveals(db: Queryable, now: number, cutoff: number): Promise<void> {
  await db.updateTable('console_reveals').set({ sealed: null }).where('expires_at', '<=', now).execute();
  await db.deleteFrom('console_reveals').where('created_at', '<', cutoff).execute();
}
