/**
 * Domains marked verified without a DNS check (`domain add --verified`, for development and tests) say so, so `doctor`
 * can report them as development-only instead of failing on their missing records. Domains added that way before
 * were verified in the instant they were created; a DNS verification always comes later.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('domains')
    .addColumn('verified_without_dns', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`update domains set verified_without_dns = 1 where verified = 1 and verified_at = created_at`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('domains').dropColumn('verified_without_dns').execute();
}
