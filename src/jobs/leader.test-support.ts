/** Test support for leader election: whether anyone on the database still holds the scheduler leadership. */
import { sql } from 'kysely';
import type { Database } from '../db/connect.ts';

/**
 * True when no process holds the leadership: no granted advisory lock in this PostgreSQL database (a stopped leader's
 * lock goes with its backend, which may outlive the client's end() by a moment; other databases on the same server
 * have leaders of their own), no `leases` row on SQLite.
 */
export async function noLeader(database: Database): Promise<boolean> {
  if (database.dialect === 'postgres') {
    const res = await sql<{
      n: number;
    }>`select count(*)::int as n from pg_locks
        where locktype = 'advisory' and granted
          and database = (select oid from pg_database where datname = current_database())`.execute(
      database.db,
    );
    return res.rows[0]?.n === 0;
  }
  const rows = await database.db.selectFrom('leases').select('name').execute();
  return rows.length === 0;
}
