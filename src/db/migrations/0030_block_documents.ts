/**
 * Campaign mailings (and through them drip emails) and dynamic templates keep the block document they were written
 * in, as JSON text beside the HTML it renders to; null when written as HTML or text.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('campaign_mailings').addColumn('content_blocks', 'text').execute();
  await db.schema.alterTable('dynamic_templates').addColumn('content_blocks', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('dynamic_templates').dropColumn('content_blocks').execute();
  await db.schema.alterTable('campaign_mailings').dropColumn('content_blocks').execute();
}
