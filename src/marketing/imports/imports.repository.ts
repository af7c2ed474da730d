/** SQL for subscriber imports: the import row and its progress, the file's chunks, the rejected rows. */
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Queryable, SubscriberImportsTable } from '../../db/types.ts';

/** An import row with its numbers as numbers (PostgreSQL returns bigint as text). */
export type ImportRow = Selectable<SubscriberImportsTable>;

const NUMERIC = [
  'id',
  'customer_id',
  'total_bytes',
  'read_bytes',
  'rows_done',
  'added',
  'updated',
  'failed',
  'dry_run',
  'created_at',
  'updated_at',
] as const;

function normal(row: ImportRow): ImportRow {
  const out = { ...row };
  for (const k of NUMERIC) (out as Record<string, unknown>)[k] = Number(row[k]);
  out.finished_at = row.finished_at === null ? null : Number(row.finished_at);
  return out;
}

/** Inserts an import; returns its id. */
export async function insertImport(db: Queryable, row: Insertable<SubscriberImportsTable>): Promise<number> {
  const r = await db.insertInto('subscriber_imports').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(r.id);
}

/** One import of an account (any account when customerId is null). */
export async function findImport(
  db: Queryable,
  customerId: number | null,
  id: number,
): Promise<ImportRow | undefined> {
  const row = await db
    .selectFrom('subscriber_imports')
    .selectAll()
    .where('id', '=', id)
    .$if(customerId !== null, (q) => q.where('customer_id', '=', customerId!))
    .executeTakeFirst();
  return row && normal(row);
}

/** The account's latest imports. */
export async function latestImports(db: Queryable, customerId: number, limit: number): Promise<ImportRow[]> {
  const rows = await db
    .selectFrom('subscriber_imports')
    .selectAll()
    .where('customer_id', '=', customerId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(normal);
}

/** Changes an import row. */
export async function updateImport(
  db: Queryable,
  id: number,
  patch: Updateable<SubscriberImportsTable>,
): Promise<void> {
  await db.updateTable('subscriber_imports').set(patch).where('id', '=', id).execute();
}

/** Moves an import from one of `from` states to a new state with a patch; false when it was in none of them. */
export async function moveImport(
  db: Queryable,
  id: number,
  from: string[],
  patch: Updateable<SubscriberImportsTable>,
): Promise<boolean> {
  const r = await db
    .updateTable('subscriber_imports')
    .set(patch)
    .where('id', '=', id)
    .where('state', 'in', from)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Stores one chunk of the uploaded file. */
export async function insertChunk(db: Queryable, importId: number, seq: number, data: string): Promise<void> {
  await db.insertInto('subscriber_import_chunks').values({ import_id: importId, seq, data }).execute();
}

/** One chunk of the file, or undefined past the end. */
export async function chunkAt(db: Queryable, importId: number, seq: number): Promise<string | undefined> {
  const r = await db
    .selectFrom('subscriber_import_chunks')
    .select('data')
    .where('import_id', '=', importId)
    .where('seq', '=', seq)
    .executeTakeFirst();
  return r?.data;
}

/** Removes the file of an import once it is no longer needed. */
export async function deleteChunks(db: Queryable, importId: number): Promise<void> {
  await db.deleteFrom('subscriber_import_chunks').where('import_id', '=', importId).execute();
}

/** Stores rejected rows (a row already stored is kept). */
export async function insertErrors(
  db: Queryable,
  rows: { import_id: number; line: number; email: string; message: string }[],
): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('subscriber_import_errors')
    .values(rows)
    .onConflict((oc) => oc.columns(['import_id', 'line']).doNothing())
    .execute();
}

/** Forgets the rejected rows of an earlier pass. */
export async function deleteErrors(db: Queryable, importId: number): Promise<void> {
  await db.deleteFrom('subscriber_import_errors').where('import_id', '=', importId).execute();
}

/** Up to `limit` rejected rows after `afterLine`, in line order. */
export async function errorsAfter(db: Queryable, importId: number, afterLine: number, limit: number) {
  const rows = await db
    .selectFrom('subscriber_import_errors')
    .select(['line', 'email', 'message'])
    .where('import_id', '=', importId)
    .where('line', '>', afterLine)
    .orderBy('line')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ ...r, line: Number(r.line) }));
}
