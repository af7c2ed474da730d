/** The console's operations pages: who created an API key, and the message log's look-ups by recipient address and by subject, and the overview's counts of a day's events. */
import type { Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('created_by', 'text').execute();
  await db.schema
    .createIndex('message_recipients_customer_address_idx')
    .on('message_recipients')
    .columns(['customer_id', 'address', 'message_id'])
    .execute();
  await db.schema
    .createIndex('email_events_customer_created_idx')
    .on('email_events')
    .columns(['customer_id', 'created_at'])
    .execute();
  await db.schema.alterTable('messages').addColumn('subject_hash', 'text').execute();
  await db.schema
    .createIndex('messages_customer_subject_idx')
    .on('messages')
    .columns(['customer_id', 'subject_hash'])
    .execute();
}
