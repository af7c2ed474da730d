/**
 * Dynamic lists (saved subscriber filters), the dynamic list a send narrows its audience by (frozen with the send), and
 * background bulk jobs with their output stored as sealed chunks, so an export streams in and out in flat memory.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';
import { serialId } from './columns.ts';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await serialId(db.schema.createTable('dynamic_lists'), dialect)
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    /** The checked filters as JSON text. */
    .addColumn('filters', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('dynamic_lists_customer_idx')
    .on('dynamic_lists')
    .columns(['customer_id'])
    .execute();

  await db.schema.alterTable('campaign_mailing_sends').addColumn('dynamic_list_id', 'bigint').execute();
  await db.schema.alterTable('campaign_mailing_sends').addColumn('dynamic_filters', 'text').execute();

  await serialId(db.schema.createTable('bulk_jobs'), dialect)
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    /** subscribers_export | dynamic_list_export */
    .addColumn('kind', 'text', (c) => c.notNull())
    /** queued | running | finished | failed */
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('params', 'text', (c) => c.notNull())
    .addColumn('rows_done', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('rows_total', 'integer')
    /** SHA-256 of the download key; the key itself is shown once. */
    .addColumn('key_hash', 'text', (c) => c.notNull())
    .addColumn('chunks', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('finished_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('bulk_jobs_customer_idx')
    .on('bulk_jobs')
    .columns(['customer_id', 'created_at'])
    .execute();
  await db.schema
    .createTable('bulk_job_chunks')
    .addColumn('job_id', 'bigint', (c) => c.notNull().references('bulk_jobs.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    /** Sealed CSV text of a run of rows. */
    .addColumn('data', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('bulk_job_chunks_pk', ['job_id', 'seq'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('bulk_job_chunks').execute();
  await db.schema.dropTable('bulk_jobs').execute();
  await db.schema.alterTable('campaign_mailing_sends').dropColumn('dynamic_filters').execute();
  await db.schema.alterTable('campaign_mailing_sends').dropColumn('dynamic_list_id').execute();
  await db.schema.dropTable('dynamic_lists').execute();
}
