/** Marketing: subscription lists, subscribers with their list memberships, and per-account custom fields. */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';
import { serialId } from './columns.ts';

const STAT_COLUMNS = [
  'stat_deliveries',
  'stat_delivered',
  'stat_opened',
  'stat_clicked',
  'stat_soft_bounced',
  'stat_hard_bounced',
  'stat_unsubscribed',
  'stat_global_unsubscribed',
] as const;

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await serialId(db.schema.createTable('subscription_lists'), dialect)
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('subscriber_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('subscription_lists_customer_idx')
    .on('subscription_lists')
    .columns(['customer_id'])
    .execute();
  await db.schema
    .createIndex('subscription_lists_one_default')
    .on('subscription_lists')
    .columns(['customer_id'])
    .unique()
    .where(sql.ref('is_default'), '=', 1)
    .execute();

  let subscribers = serialId(db.schema.createTable('subscribers'), dialect)
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('email_key', 'text', (c) => c.notNull())
    .addColumn('first_name', 'text')
    .addColumn('last_name', 'text')
    .addColumn('phone_number', 'text')
    .addColumn('unsubscribed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('unsubscribed_at', 'bigint');
  for (const col of STAT_COLUMNS)
    subscribers = subscribers.addColumn(col, 'integer', (c) => c.notNull().defaultTo(0));
  await subscribers
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('subscribers_customer_email_unique', ['customer_id', 'email_key'])
    .execute();
  await db.schema
    .createIndex('subscribers_customer_created_idx')
    .on('subscribers')
    .columns(['customer_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('subscription_list_members')
    .addColumn('list_id', 'bigint', (c) =>
      c.notNull().references('subscription_lists.id').onDelete('cascade'),
    )
    .addColumn('subscriber_id', 'bigint', (c) => c.notNull().references('subscribers.id').onDelete('cascade'))
    .addColumn('unsubscribed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('subscription_list_members_pk', ['list_id', 'subscriber_id'])
    .execute();
  await db.schema
    .createIndex('subscription_list_members_subscriber_idx')
    .on('subscription_list_members')
    .columns(['subscriber_id'])
    .execute();

  await serialId(db.schema.createTable('subscriber_custom_field_types'), dialect)
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('subscriber_custom_field_types_name_unique', ['customer_id', 'name_key'])
    .execute();

  await db.schema
    .createTable('subscriber_custom_field_values')
    .addColumn('subscriber_id', 'bigint', (c) => c.notNull().references('subscribers.id').onDelete('cascade'))
    .addColumn('field_type_id', 'bigint', (c) =>
      c.notNull().references('subscriber_custom_field_types.id').onDelete('cascade'),
    )
    .addColumn('value', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('subscriber_custom_field_values_pk', ['subscriber_id', 'field_type_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of [
    'subscriber_custom_field_values',
    'subscriber_custom_field_types',
    'subscription_list_members',
    'subscribers',
    'subscription_lists',
  ])
    await db.schema.dropTable(t).execute();
}
