/** Transactional email: messages, per-recipient deliveries, tracked links, events, idempotency keys, dynamic templates, the capture store. */
import type { Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';
import { serialId } from './columns.ts';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await createMessages(db);
  await createRecipients(db, dialect);
  await createEvents(db, dialect);
  await createIdempotencyKeys(db);
  await createTemplates(db, dialect);
  await createCaptureStore(db, dialect);
}

/** The messages, one row per accepted message, with their indexes by account and by finish. */
async function createMessages(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('domain_id', 'text')
    .addColumn('header_message_id', 'text', (c) => c.notNull())
    .addColumn('from_addr', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('lane', 'text', (c) => c.notNull())
    .addColumn('allow_non_tls', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('force_secure', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('open_tracking', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('link_tracking', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('custom_headers', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('content', 'text')
    .addColumn('content_purged_at', 'bigint')
    .addColumn('recipient_count', 'integer', (c) => c.notNull())
    .addColumn('pending_count', 'integer', (c) => c.notNull())
    .addColumn('total_opens', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('total_clicks', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('unsubscribed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('finished_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('messages_customer_created_idx')
    .on('messages')
    .columns(['customer_id', 'created_at'])
    .execute();
  await db.schema.createIndex('messages_finished_idx').on('messages').columns(['finished_at']).execute();
}

/** Each message's per-recipient deliveries and its tracked links. */
async function createRecipients(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await serialId(db.schema.createTable('message_recipients'), dialect)
    .addColumn('message_id', 'text', (c) => c.notNull().references('messages.id').onDelete('cascade'))
    .addColumn('customer_id', 'integer', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('delivery_status', 'text', (c) => c.notNull())
    .addColumn('delivered_at', 'bigint')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_response', 'text')
    .addColumn('via', 'text')
    .addColumn('tls', 'integer')
    .addColumn('first_opened_at', 'bigint')
    .addColumn('open_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('secure_token_hash', 'text', (c) => c.unique())
    .addColumn('secure_expires_at', 'bigint')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('message_recipients_message_idx')
    .on('message_recipients')
    .column('message_id')
    .execute();

  await serialId(db.schema.createTable('message_links'), dialect)
    .addColumn('message_id', 'text', (c) => c.notNull().references('messages.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('target_url', 'text', (c) => c.notNull())
    .addColumn('click_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addUniqueConstraint('message_links_position_unique', ['message_id', 'position'])
    .execute();
}

/** The email events, indexed by message and by account. */
async function createEvents(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await serialId(db.schema.createTable('email_events'), dialect)
    .addColumn('customer_id', 'integer', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('recipient_id', 'bigint')
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('email_events_message_idx')
    .on('email_events')
    .columns(['message_id', 'id'])
    .execute();
  await db.schema
    .createIndex('email_events_customer_idx')
    .on('email_events')
    .columns(['customer_id', 'id'])
    .execute();
}

/** The idempotency keys of sends, with the answer each one was given. */
async function createIdempotencyKeys(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('customer_id', 'integer', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('response', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['customer_id', 'key'])
    .execute();
}

/** The dynamic templates, one name per account. */
async function createTemplates(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await serialId(db.schema.createTable('dynamic_templates'), dialect)
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('dynamic_templates_name_unique', ['customer_id', 'name'])
    .execute();
}

/** The capture store: the messages the capture transport kept instead of sending. */
async function createCaptureStore(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await serialId(db.schema.createTable('captured_messages'), dialect)
    .addColumn('customer_id', 'integer', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull().references('messages.id').onDelete('cascade'))
    .addColumn('recipient_id', 'bigint', (c) => c.notNull())
    .addColumn('envelope_from', 'text', (c) => c.notNull())
    .addColumn('envelope_to', 'text', (c) => c.notNull())
    .addColumn('raw', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('captured_messages_message_idx')
    .on('captured_messages')
    .columns(['message_id'])
    .execute();
  await db.schema
    .createIndex('captured_messages_customer_idx')
    .on('captured_messages')
    .columns(['customer_id', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of [
    'captured_messages',
    'dynamic_templates',
    'idempotency_keys',
    'email_events',
    'message_links',
    'message_recipients',
    'messages',
  ])
    await db.schema.dropTable(t).execute();
}
