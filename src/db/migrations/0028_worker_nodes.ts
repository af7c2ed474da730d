/**
 * Worker heartbeats: each running worker keeps one row, renewed every few seconds, so a live worker can tell when
 * another has died and take over the work rows it leased, instead of waiting out their lease.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('worker_nodes')
    .addColumn('owner', 'text', (c) => c.primaryKey())
    .addColumn('node', 'text', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('worker_nodes_last_seen_idx').on('worker_nodes').column('last_seen').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('worker_nodes').execute();
}
