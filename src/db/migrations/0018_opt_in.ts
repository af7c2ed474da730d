/**
 * Double opt-in and the preference page: a list can ask new members to confirm their address (the member's
 * confirmation state and the hash of its one-use link), a list can be shown on the public preference page, and the
 * account keeps a postal address for the footer of its campaign emails.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('subscription_lists')
    .addColumn('double_opt_in', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('subscription_lists').addColumn('confirm_from_email', 'text').execute();
  await db.schema
    .alterTable('subscription_lists')
    .addColumn('public', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  /** When the member confirmed (or was counted as confirmed: joined before the list asked for confirmation). */
  await db.schema.alterTable('subscription_list_members').addColumn('confirmed_at', 'bigint').execute();
  /** SHA-256 of the nonce of the open confirmation link; null once used. */
  await db.schema.alterTable('subscription_list_members').addColumn('confirm_hash', 'text').execute();
  await db.schema.alterTable('subscription_list_members').addColumn('confirm_expires_at', 'bigint').execute();
  await db.schema.alterTable('subscription_list_members').addColumn('confirm_sent_at', 'bigint').execute();
  await db.schema
    .createIndex('subscription_list_members_confirm_idx')
    .on('subscription_list_members')
    .columns(['confirm_hash'])
    .execute();
  await db.schema.alterTable('marketing_settings').addColumn('postal_address', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('marketing_settings').dropColumn('postal_address').execute();
  await db.schema.dropIndex('subscription_list_members_confirm_idx').execute();
  for (const c of ['confirm_sent_at', 'confirm_expires_at', 'confirm_hash', 'confirmed_at'])
    await db.schema.alterTable('subscription_list_members').dropColumn(c).execute();
  for (const c of ['public', 'confirm_from_email', 'double_opt_in'])
    await db.schema.alterTable('subscription_lists').dropColumn(c).execute();
}
