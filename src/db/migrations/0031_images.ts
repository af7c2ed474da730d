/**
 * The image library: pictures an account uploads for its emails and its brand, kept in the database itself (SQLite
 * blob, PostgreSQL bytea) so a backup and a move to PostgreSQL carry them and every node serves the same bytes. `token`
 * is the unguessable part of the public URL; `id` names the image in the API.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('images')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('token', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('width', 'integer', (c) => c.notNull())
    .addColumn('height', 'integer', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('data', dialect === 'sqlite' ? 'blob' : 'bytea', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('images_customer_idx')
    .on('images')
    .columns(['customer_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('images').execute();
}
