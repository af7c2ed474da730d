/** Column helpers for the few places where the two dialects spell a column differently. */
import type { CreateTableBuilder } from 'kysely';
import type { Dialect } from '../connect.ts';

/** Adds an auto-incrementing integer primary key `id`: SQLite's rowid alias or a PostgreSQL identity column. */
export function serialId<T extends string>(
  table: CreateTableBuilder<T, never>,
  dialect: Dialect,
): CreateTableBuilder<T, 'id'> {
  return dialect === 'sqlite'
    ? table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    : table.addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity());
}
