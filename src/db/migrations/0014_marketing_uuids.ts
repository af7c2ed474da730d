/**
 * Public UUIDs of marketing objects. Rows keep their integer primary keys for joins; each also gets an RFC 9562
 * version 7 UUID (time-ordered with random bits; see `src/db/uuid-sql.ts`) in `uuid`, unique, which is the id the
 * API shows and takes. Existing rows get one here; new rows get one from the database itself (a column default on
 * PostgreSQL, an insert trigger on SQLite, whose ALTER TABLE cannot add an expression default), so every insert path,
 * bulk `INSERT ... SELECT` included, is covered.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';
import { randomUuidSql } from '../uuid-sql.ts';

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

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  for (const table of UUID_TABLES) {
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
}

export async function down(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  for (const table of UUID_TABLES) {
    if (dialect === 'sqlite') await sql`drop trigger if exists ${sql.raw(`${table}_uuid`)}`.execute(db);
    await db.schema.dropIndex(`${table}_uuid_idx`).execute();
    await db.schema.alterTable(table).dropColumn('uuid').execute();
  }
}
