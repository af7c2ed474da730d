/**
 * Secrets the console shows once (a new API key, a webhook signing secret): the answer to the creating form redirects
 * to a page named by a random token; this row, found by the token's hash, holds the sealed secret until that page is
 * shown once, then only the time it was shown.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('console_reveals')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('session_id', 'text', (c) => c.notNull().references('console_sessions.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('sealed', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('shown_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('console_reveals_session_idx')
    .on('console_reveals')
    .columns(['session_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('console_reveals').execute();
}
