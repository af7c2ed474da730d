/** The one row of `master_key_check`: the value sealed with the master key at the first start. */
import type { Queryable } from '../db/types.ts';

/** The check value and the fingerprint of the key that sealed it, if the database has one yet. */
export function readKeyCheck(db: Queryable): Promise<{ fingerprint: string; sealed: string } | undefined> {
  return db
    .selectFrom('master_key_check')
    .select(['fingerprint', 'sealed'])
    .where('id', '=', 1)
    .executeTakeFirst();
}

/** Stores the check value unless one is there already (another node may have written its own first). */
export async function insertKeyCheck(db: Queryable, fingerprint: string, sealed: string): Promise<void> {
  await db
    .insertInto('master_key_check')
    .values({ id: 1, fingerprint, sealed, created_at: Date.now() })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}
