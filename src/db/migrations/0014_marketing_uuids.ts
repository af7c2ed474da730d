/**
 * Public UUIDs of marketing objects. Rows keep their integer primary keys for joins; each also gets an RFC 9562
 * version 7 UUID (time-ordered with random bits; see `src/db/uuid-sql.ts`) in `uuid`, unique, which is the id the
 * API shows and takes. Existing rows get one here; new rows get one from the database itself (a column default on
 * PostgreSQL, an insert trigger on SQLite, whose ALTER TABLE cannot add an expression default), so every insert path,
 * bulk `INSERT ... SELECT` included, is covered.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';
import { addPublicUuid, dropPublicUuid } from '../uuid-sql.ts';

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
  for (const table of UUID_TABLES) await addPublicUuid(db, dialect, table);
}

export async function down(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  for (const table of UUID_TABLES) await dropPublicUuid(db, dialect, table);
}
