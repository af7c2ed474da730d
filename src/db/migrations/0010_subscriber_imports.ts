/** Subscriber imports from CSV: the import with its progress, the uploaded file in text chunks, the rejected rows. */
import type { Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';
import { serialId } from './columns.ts';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await serialId(db.schema.createTable('subscriber_imports'), dialect)
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('list_id', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('dry_run', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('columns', 'text', (c) => c.notNull())
    .addColumn('mapping', 'text', (c) => c.notNull())
    .addColumn('total_bytes', 'bigint', (c) => c.notNull())
    .addColumn('read_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('rows_done', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('added', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('updated', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('failed', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('finished_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('subscriber_imports_customer_idx')
    .on('subscriber_imports')
    .columns(['customer_id', 'id'])
    .execute();
  await db.schema
    .createTable('subscriber_import_chunks')
    .addColumn('import_id', 'integer', (c) =>
      c.notNull().references('subscriber_imports.id').onDelete('cascade'),
    )
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('subscriber_import_chunks_pk', ['import_id', 'seq'])
    .execute();
  await db.schema
    .createTable('subscriber_import_errors')
    .addColumn('import_id', 'integer', (c) =>
      c.notNull().references('subscriber_imports.id').onDelete('cascade'),
    )
    .addColumn('line', 'bigint', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('subscriber_import_errors_pk', ['import_id', 'line'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('subscriber_import_errors').execute();
  await db.schema.dropTable('subscriber_import_chunks').execute();
  await db.schema.dropTable('subscriber_imports').execute();
}
