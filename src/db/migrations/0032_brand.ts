/**
 * An account's brand, beside its postal address in `marketing_settings`: the display name shown on public pages and
 * system emails, the brand colour, and the logo (an image of the account's library, by id).
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('marketing_settings').addColumn('brand_name', 'text').execute();
  await db.schema.alterTable('marketing_settings').addColumn('brand_color', 'text').execute();
  await db.schema.alterTable('marketing_settings').addColumn('brand_logo_id', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('marketing_settings').dropColumn('brand_logo_id').execute();
  await db.schema.alterTable('marketing_settings').dropColumn('brand_color').execute();
  await db.schema.alterTable('marketing_settings').dropColumn('brand_name').execute();
}
