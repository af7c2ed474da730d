/** The console's operations pages: who created an API key, and the message log's look-up by recipient address. */
import type { Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('created_by', 'text').execute();
  await db.schema
    .createIndex('message_recipients_customer_address_idx')
    .on('message_recipients')
    .columns(['customer_id', 'address', 'message_id'])
    .execute();
}
