/** Forms: definitions, encrypted submissions, signature evidence, and the per-day submission counters statistics read. */
import type { Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('forms')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('form_json', 'text', (c) => c.notNull())
    .addColumn('form_html', 'text', (c) => c.notNull())
    .addColumn('form_css', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('vanity_url', 'text')
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('old_form_id', 'text')
    .addColumn('recipient', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('signable', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('signature_confirmation_label', 'text')
    .addColumn('submission_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('type', 'text')
    .addColumn('subscription_list_id', 'text')
    .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('archived', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('forms_customer_created_idx')
    .on('forms')
    .columns(['customer_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('form_submissions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('form_id', 'text', (c) => c.notNull().references('forms.id').onDelete('cascade'))
    .addColumn('customer_id', 'integer', (c) => c.notNull())
    .addColumn('form_version', 'integer', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('form_submissions_idempotency_unique', ['form_id', 'idempotency_key'])
    .execute();
  await db.schema
    .createIndex('form_submissions_form_created_idx')
    .on('form_submissions')
    .columns(['form_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('form_signatures')
    .addColumn('submission_id', 'text', (c) =>
      c.primaryKey().references('form_submissions.id').onDelete('cascade'),
    )
    .addColumn('form_id', 'text', (c) => c.notNull())
    .addColumn('form_version', 'integer', (c) => c.notNull())
    .addColumn('field_name', 'text', (c) => c.notNull())
    .addColumn('label', 'text')
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('image', 'text', (c) => c.notNull())
    .addColumn('signed_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('form_daily_counts')
    .addColumn('form_id', 'text', (c) => c.notNull().references('forms.id').onDelete('cascade'))
    .addColumn('customer_id', 'integer', (c) => c.notNull())
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('form_daily_counts_pk', ['form_id', 'day'])
    .execute();
  await db.schema
    .createIndex('form_daily_counts_customer_idx')
    .on('form_daily_counts')
    .columns(['customer_id', 'day'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['form_daily_counts', 'form_signatures', 'form_submissions', 'forms'])
    await db.schema.dropTable(t).execute();
}
