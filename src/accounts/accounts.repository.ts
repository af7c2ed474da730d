/** SQL for customers (accounts). */
import { sql } from 'kysely';
import type { Queryable } from '../db/types.ts';

/** An account row. */
export interface AccountRow {
  id: number;
  username: string;
  created_at: number;
}

/** Inserts an account and returns it. */
export async function insertAccount(db: Queryable, username: string, now: number): Promise<AccountRow> {
  return db
    .insertInto('customers')
    .values({ username, created_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Finds an account by username (usernames are stored lower-case). */
export async function findAccountByUsername(
  db: Queryable,
  username: string,
): Promise<AccountRow | undefined> {
  return db.selectFrom('customers').selectAll().where('username', '=', username).executeTakeFirst();
}

/** Finds an account by id. */
export async function findAccountById(db: Queryable, id: number): Promise<AccountRow | undefined> {
  return db.selectFrom('customers').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Accounts whose username contains `search` (any when empty), by username, at most `limit`. */
export async function searchAccountRows(db: Queryable, search: string, limit: number): Promise<AccountRow[]> {
  let q = db.selectFrom('customers').selectAll();
  if (search) {
    const pattern = `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    q = q.where(sql<boolean>`username like ${pattern} escape '\\'`);
  }
  return q.orderBy('username').limit(limit).execute();
}

/** Lists every account, oldest first. */
export async function listAccounts(db: Queryable): Promise<AccountRow[]> {
  return db.selectFrom('customers').selectAll().orderBy('id').execute();
}
