/** SQL of console drafts: forms posted on an expired session. */
import type { Insertable, Selectable } from 'kysely';
import type { ConsoleDraftsTable, Queryable } from '../db/types.ts';

export type DraftRow = Selectable<ConsoleDraftsTable>;

export async function insertDraft(db: Queryable, row: Insertable<ConsoleDraftsTable>): Promise<void> {
  await db.insertInto('console_drafts').values(row).execute();
}

/** Deletes and answers a user's draft that has not expired (a draft is read once). */
export async function takeDraftRow(
  db: Queryable,
  id: string,
  userId: string,
  now: number,
): Promise<DraftRow | undefined> {
  const row = await db
    .selectFrom('console_drafts')
    .selectAll()
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (!row) return undefined;
  const gone = await db.deleteFrom('console_drafts').where('id', '=', id).executeTakeFirst();
  return Number(gone.numDeletedRows) > 0 ? row : undefined;
}

/** Removes expired drafts. */
export async function deleteExpiredDrafts(db: Queryable, now: number): Promise<number> {
  const res = await db.deleteFrom('console_drafts').where('expires_at', '<=', now).executeTakeFirst();
  return Number(res.numDeletedRows);
}
