/**
 * Ed25519 DKIM (RFC 8463). `dkim_algorithm` names the algorithm of a domain's first key (`rsa`, as every domain had
 * before, or `ed25519`); a domain that signs with both keeps its Ed25519 key in the `dkim2_` columns, under a selector
 * of its own, sealed like the first.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('domains')
    .addColumn('dkim_algorithm', 'text', (c) => c.notNull().defaultTo('rsa'))
    .execute();
  await db.schema.alterTable('domains').addColumn('dkim2_selector', 'text').execute();
  await db.schema.alterTable('domains').addColumn('dkim2_public_key', 'text').execute();
  await db.schema.alterTable('domains').addColumn('dkim2_private_key', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const c of ['dkim2_private_key', 'dkim2_public_key', 'dkim2_selector', 'dkim_algorithm'])
    await db.schema.alterTable('domains').dropColumn(c).execute();
}
