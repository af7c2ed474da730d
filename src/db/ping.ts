/** The cheapest round trip to the database, for readiness checks. */
import { sql } from 'kysely';
import type { Queryable } from './types.ts';

/** Runs `select 1`; throws when the database cannot be reached. */
export async function ping(db: Queryable): Promise<void> {
  await sql`select 1`.execute(db);
}
