/**
 * A fresh RFC 9562 version 7 UUID computed by the database, in each dialect's SQL: 48 bits of the Unix time in
 * milliseconds, then 74 random bits (with the version nibble 7 and the variant bits 10). Time-ordered ids are appended
 * at the end of their unique index instead of landing on a random page, so inserting many rows stays as cheap as it
 * was with integer keys alone; the random part keeps them unguessable.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Dialect } from './connect.ts';

const SQLITE_MS = "printf('%012x', cast((julianday('now') - 2440587.5) * 86400000 as integer))";
const SQLITE_UUID = sql.raw(
  `substr(${SQLITE_MS}, 1, 8) || '-' || substr(${SQLITE_MS}, 9, 4) || '-7' || substr(lower(hex(randomblob(2))), 2) ` +
    "|| '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(lower(hex(randomblob(2))), 2) || '-' " +
    '|| lower(hex(randomblob(6)))',
);

// PostgreSQL 15 has no uuidv7(): the time is the statement's (read once, so the two halves of the time part always
// agree, as SQLite's 'now' does within a statement); the random hex digits are taken from gen_random_uuid() (cryptographically random),
// skipping its version and variant positions.
const PG_MS = "lpad(to_hex(floor(extract(epoch from statement_timestamp()) * 1000)::bigint), 12, '0')";
const PG_HEX = "replace(gen_random_uuid()::text, '-', '')";
const PG_UUID = sql.raw(
  `substr(${PG_MS}, 1, 8) || '-' || substr(${PG_MS}, 9, 4) || '-7' || substr(${PG_HEX}, 14, 3) || '-' ` +
    `|| substr(${PG_HEX}, 17, 4) || '-' || substr(${PG_HEX}, 21, 12)`,
);

/** An SQL expression giving a fresh UUID (version 7) as text for each row it is evaluated for. */
export function randomUuidSql(dialect: Dialect): RawBuilder<string> {
  return dialect === 'postgres' ? sql<string>`${PG_UUID}` : sql<string>`${SQLITE_UUID}`;
}

/**
 * Gives every row of `table` a public UUID in a unique `uuid` column: existing rows here, new rows from the database
 * itself (a column default on PostgreSQL, an insert trigger on SQLite, whose ALTER TABLE cannot add an expression
 * default), so every insert path is covered.
 */
export async function addPublicUuid(db: Kysely<unknown>, dialect: Dialect, table: string): Promise<void> {
  const t = sql.table(table);
  await db.schema.alterTable(table).addColumn('uuid', 'text').execute();
  const uuid = randomUuidSql(dialect);
  await sql`update ${t} set uuid = ${uuid}`.execute(db);
  if (dialect === 'postgres') {
    await sql`alter table ${t} alter column uuid set default ${uuid}`.execute(db);
    await sql`alter table ${t} alter column uuid set not null`.execute(db);
  } else {
    await sql`create trigger ${sql.raw(`${table}_uuid`)} after insert on ${t} for each row when new.uuid is null
      begin update ${t} set uuid = ${uuid} where rowid = new.rowid; end`.execute(db);
  }
  await db.schema.createIndex(`${table}_uuid_idx`).on(table).column('uuid').unique().execute();
}

/** Undoes `addPublicUuid`. */
export async function dropPublicUuid(db: Kysely<unknown>, dialect: Dialect, table: string): Promise<void> {
  if (dialect === 'sqlite') await sql`drop trigger if exists ${sql.raw(`${table}_uuid`)}`.execute(db);
  await db.schema.dropIndex(`${table}_uuid_idx`).execute();
  await db.schema.alterTable(table).dropColumn('uuid').execute();
}
