/** SQL of console sessions: the row per signed-in browser, keyed by the hash of its cookie token. */
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { ConsoleSessionsTable, Queryable } from '../db/types.ts';

/** A stored session. */
export type SessionRow = Selectable<ConsoleSessionsTable>;

/** Inserts a session. */
export async function insertSession(db: Queryable, row: Insertable<ConsoleSessionsTable>): Promise<void> {
  await db.insertInto('console_sessions').values(row).execute();
}

/** A session by id (the token's hash). */
export async function findSession(db: Queryable, id: string): Promise<SessionRow | undefined> {
  return db.selectFrom('console_sessions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Changes columns of a session. */
export async function updateSession(
  db: Queryable,
  id: string,
  changes: Updateable<ConsoleSessionsTable>,
): Promise<void> {
  await db.updateTable('console_sessions').set(changes).where('id', '=', id).execute();
}

/** Takes the flash of a session (reads and clears it in one step). */
export async function takeFlash(db: Queryable, id: string): Promise<string | null> {
  const row = await db.selectFrom('console_sessions').select('flash').where('id', '=', id).executeTakeFirst();
  if (row?.flash)
    await db.updateTable('console_sessions').set({ flash: null }).where('id', '=', id).execute();
  return row?.flash ?? null;
}

/** Deletes a session. */
export async function deleteSession(db: Queryable, id: string): Promise<void> {
  await db.deleteFrom('console_sessions').where('id', '=', id).execute();
}

/** Deletes every session of a user. */
export async function deleteSessionsOfUser(db: Queryable, userId: string): Promise<void> {
  await db.deleteFrom('console_sessions').where('user_id', '=', userId).execute();
}

/** Deletes sessions past their absolute end or idle since before `idleCutoff`. */
export async function deleteStaleSessions(db: Queryable, now: number, idleCutoff: number): Promise<number> {
  const res = await db
    .deleteFrom('console_sessions')
    .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<', idleCutoff)]))
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}
