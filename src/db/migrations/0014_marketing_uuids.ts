/**
 * Public UUIDs of marketing objects. Rows keep their integer primary keys for joins; each also gets a random
 * RFC 9562 version 4 UUID in `uuid`, unique, which is the id the API shows and takes. Existing rows get one here; new
 * rows get one from the database itself (a column default on PostgreSQL, an insert trigger on SQLite, whose ALTER TABLE
 * cannot add an expression default), so every insert path, bulk `INSERT ... SELECT` included, is covered.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

/** The tables whose rows get a public UUID. */
export const UUID_TABLES = [
  'subscription_lists',
  'dynamic_lists',
  'subscribers',
  'subscription_list_members',
  'campaign_mailings',
  'campaign_mailing_sends',
  'marketing_deliveries',
  'drip_campaigns',
] as const;

/** A random version 4 UUID in SQLite's SQL: 122 random bits, the version nibble 4 and the variant bits 10. */
const SQLITE_UUID = sql.raw(
  "lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || substr(lower(hex(randomblob(2))), 2) " +
    "|| '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(lower(hex(randomblob(2))), 2) || '-' " +
    '|| lower(hex(randomblob(6)))',
);

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  for (const table of UUID_TABLES) {
    const t = sql.table(table);
    await db.schema.alterTable(table).addColumn('uuid', 'text').execute();
    if (dialect === 'postgres') {
      await sql`update ${t} set uuid = gen_random_uuid()::text`.execute(db);
      await sql`alter table ${t} alter column uuid set default gen_random_uuid()::text`.execute(db);
      await sql`alter table ${t} alter column uuid set not null`.execute(db);
    } else {
      await sql`update ${t} set uuid = ${SQLITE_UUID}`.execute(db);
      await sql`create trigger ${sql.raw(`${table}_uuid`)} after insert on ${t} for each row when new.uuid is null
        begin update ${t} set uuid = ${SQLITE_UUID} where rowid = new.rowid; end`.execute(db);
    }
    await db.schema.createIndex(`${table}_uuid_idx`).on(table).column('uuid').unique().execute();
  }
}

export async function down(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  for (const table of UUID_TABLES) {
    if (dialect === 'sqlite') await sql`drop trigger if exists ${sql.raw(`${table}_uuid`)}`.execute(db);
    await db.schema.dropIndex(`${table}_uuid_idx`).execute();
    await db.schema.alterTable(table).dropColumn('uuid').execute();
  }
}
