/** Transactional messages held until a chosen time: the sealed message, its time and its state, one row each. */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('scheduled_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('key_domain', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('scheduled_at', 'bigint', (c) => c.notNull())
    .addColumn('revision', 'integer', (c) => c.notNull())
    .addColumn('content', 'text')
    .addColumn('error_code', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('sent_at', 'bigint')
    .addColumn('cancelled_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('scheduled_messages_customer')
    .on('scheduled_messages')
    .columns(['customer_id', 'state', 'scheduled_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('scheduled_messages').execute();
}
