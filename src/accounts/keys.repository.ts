/** SQL for API keys. Only hashes are stored. */
import type { Selectable } from 'kysely';
import type { ApiKeysTable, Queryable } from '../db/types.ts';
import { precompile } from '../db/precompiled.ts';

/** An API key row. */
export type ApiKeyRow = Selectable<ApiKeysTable>;

/** A key row joined with its account's username, as authentication needs it. */
export type ApiKeyWithAccount = ApiKeyRow & { username: string; domain: string | null };

/** Inserts a key row. */
export async function insertKey(db: Queryable, row: ApiKeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

// Every authenticated request runs this, so it is compiled once (see db/precompiled.ts).
const findKeyByHashQuery = precompile((db, k: { hash: string }) =>
  db
    .selectFrom('api_keys')
    .innerJoin('customers', 'customers.id', 'api_keys.customer_id')
    .leftJoin('domains', 'domains.id', 'api_keys.domain_id')
    .selectAll('api_keys')
    .select(['customers.username', 'domains.name as domain'])
    .where('api_keys.key_hash', '=', k.hash),
);

/** Finds a key by the hash of its value, with the account's username. */
export async function findKeyByHash(db: Queryable, hash: string): Promise<ApiKeyWithAccount | undefined> {
  return (await findKeyByHashQuery(db, { hash })).rows[0];
}

/** Lists an account's keys, newest first. */
export async function listKeys(
  db: Queryable,
  customerId: number,
): Promise<(ApiKeyRow & { domain: string | null })[]> {
  return db
    .selectFrom('api_keys')
    .leftJoin('domains', 'domains.id', 'api_keys.domain_id')
    .selectAll('api_keys')
    .select('domains.name as domain')
    .where('api_keys.customer_id', '=', customerId)
    .orderBy('api_keys.created_at', 'desc')
    .orderBy('api_keys.id')
    .execute();
}

/** Sets revoked_at on a key that is not yet revoked; returns whether a row changed. */
export async function revokeKey(db: Queryable, id: string, now: number): Promise<boolean> {
  const res = await db
    .updateTable('api_keys')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Finds a key by id. */
export async function findKeyById(db: Queryable, id: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Records that a key was used at `now`. */
export async function touchKey(db: Queryable, id: string, now: number): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', id).execute();
}
