/**
 * One pass of an import, run by the worker: the stored file is read chunk by chunk through csv-parse (backpressure
 * keeps memory flat at any size), each row is mapped and checked, and every 1,000 rows the good ones are written with
 * the bulk create of subscribers (or, in a dry run, only compared with the subscribers that exist) and the progress is
 * committed. A pass restarted after a crash skips the rows already committed.
 */
import { Readable } from 'node:stream';
import type * as CsvParse from 'csv-parse';
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/types.ts';
import type { QueueSpec } from '../../jobs/worker.ts';
import { PermanentJobError } from '../../jobs/retry.ts';
import { AppError } from '../../errors/app-error.ts';
import { bulkCreate, type BulkEntry } from '../subscribers/subscribers.bulk.ts';
import { checkEmail } from '../subscribers/subscriber-input.ts';
import { findByEmailKeys } from '../subscribers/rows.service.ts';
import {
  chunkAt,
  deleteChunks,
  findImport,
  insertErrors,
  moveImport,
  updateImport,
  type ImportRow,
} from './imports.repository.ts';
import { IMPORT_QUEUE, type ImportMapping } from './imports.service.ts';
import { onFirstUse } from '../../on-first-use.ts';

const csvParse = onFirstUse<typeof CsvParse>('csv-parse');

const BATCH = 1000;
/** Rejected rows kept for the report; beyond this only the count grows. */
const MAX_ERROR_ROWS = 10_000;

interface Pending {
  line: number;
  entry?: BulkEntry;
  email: string;
  error?: string;
}

/** The import queue of the worker role. */
export function importQueue(ctx: AppContext): Record<string, QueueSpec> {
  return {
    [IMPORT_QUEUE]: {
      concurrency: 1,
      leaseMs: 10 * 60_000,
      handler: async (job) => {
        const { importId } = job.data as { importId: number };
        try {
          await runImport(ctx, importId);
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          await fail(ctx.database.db, importId, err.message);
          throw new PermanentJobError(err.message);
        }
      },
      onFailed: async (job, error) =>
        fail(ctx.database.db, (job.data as { importId: number }).importId, error),
    },
  };
}

/** Runs the queued (or interrupted) pass of an import to its end. */
export async function runImport(
  ctx: AppContext,
  importId: number,
  onProgress?: (row: ImportRow) => void,
): Promise<void> {
  const db = ctx.database.db;
  const row = await findImport(db, null, importId);
  if (
    !row ||
    !(await moveImport(db, importId, ['queued', 'running'], { state: 'running', updated_at: Date.now() }))
  )
    return;
  const mapping = JSON.parse(row.mapping) as ImportMapping;
  const columns = JSON.parse(row.columns) as string[];
  const progress = {
    rows: row.rows_done,
    added: row.added,
    updated: row.updated,
    failed: row.failed,
    bytes: row.read_bytes,
  };
  const parser = Readable.from(chunks(db, importId)).pipe(
    csvParse().parse({
      bom: true,
      relax_column_count: true,
      skip_empty_lines: true,
      relax_quotes: true,
      info: true,
    }),
  );
  let batch: Pending[] = [];
  // The line of each email's first row (lower-cased), so a repeat within the file is reported, not merged silently.
  const seen = new Map<string, number>();
  const commit = async () => {
    await writeBatch(ctx, row, batch, progress);
    batch = [];
    await updateImport(db, importId, {
      rows_done: progress.rows,
      added: progress.added,
      updated: progress.updated,
      failed: progress.failed,
      read_bytes: progress.bytes,
      updated_at: Date.now(),
    });
    onProgress?.((await findImport(db, null, importId))!);
  };
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: string[];
      info: { records: number; lines: number; bytes: number };
    }>) {
      const index = info.records - 1;
      if (index === 0) continue;
      const mapped = firstOnly(mapRow(record, info.lines, mapping, columns), seen);
      // A restarted pass reads the committed rows again only to know their emails.
      if (index <= row.rows_done) continue;
      batch.push(mapped);
      progress.bytes = info.bytes;
      if (batch.length >= BATCH) await commit();
    }
  } catch (err) {
    if (err instanceof Error && 'code' in err && String(err.code).startsWith('CSV_'))
      throw new AppError('marketing.import_invalid', `the file could not be read as CSV: ${err.message}`);
    throw err;
  }
  await commit();
  await finish(db, row);
}

async function* chunks(db: Queryable, importId: number): AsyncGenerator<string> {
  for (let seq = 0; ; seq++) {
    const data = await chunkAt(db, importId, seq);
    if (data === undefined) return;
    yield data;
  }
}

function mapRow(record: string[], line: number, mapping: ImportMapping, columns: string[]): Pending {
  const entry: BulkEntry = { email: '', custom_fields: [] };
  for (const [k, field] of Object.entries(mapping)) {
    const value = (record[Number(k)] ?? '').trim();
    if (field === 'email') entry.email = value;
    else if (field === 'first_name') entry.first_name = value;
    else if (field === 'last_name') entry.last_name = value;
    else if (value) entry.custom_fields!.push({ name: columns[Number(k)]!, value });
  }
  if (!entry.email) return { line, email: '', error: 'the email column is empty' };
  try {
    checkEmail(entry.email, 'email');
  } catch {
    return { line, email: entry.email.slice(0, 254), error: 'not a valid email address' };
  }
  return { line, email: entry.email, entry };
}

/** A row whose email an earlier row of the file had becomes a rejected row naming that line. */
function firstOnly(p: Pending, seen: Map<string, number>): Pending {
  if (!p.entry) return p;
  const key = p.email.trim().toLowerCase();
  const first = seen.get(key);
  if (first === undefined) {
    seen.set(key, p.line);
    return p;
  }
  return { line: p.line, email: p.email, error: `repeats the email of line ${first}; that row was kept` };
}

async function writeBatch(
  ctx: AppContext,
  row: ImportRow,
  batch: Pending[],
  progress: { rows: number; added: number; updated: number; failed: number },
): Promise<void> {
  const db = ctx.database.db;
  const good = batch.filter((p) => p.entry).map((p) => p.entry!);
  const bad = batch.filter((p) => p.error);
  if (good.length > 0) {
    if (row.dry_run === 1) {
      const keys = [...new Set(good.map((e) => e.email.toLowerCase()))];
      const existing = await findByEmailKeys(db, row.customer_id, keys);
      progress.added += keys.length - existing.size;
      progress.updated += existing.size;
    } else {
      const r = await bulkCreate(ctx, row.customer_id, good, row.list_id);
      progress.added += r.num_subscribers_added;
      progress.updated += r.num_subscribers_updated;
    }
  }
  const room = Math.max(0, MAX_ERROR_ROWS - progress.failed);
  await insertErrors(
    db,
    bad.slice(0, room).map((p) => ({ import_id: row.id, line: p.line, email: p.email, message: p.error! })),
  );
  progress.failed += bad.length;
  progress.rows += batch.length;
}

async function finish(db: Queryable, row: ImportRow): Promise<void> {
  const now = Date.now();
  await moveImport(db, row.id, ['running'], {
    state: row.dry_run === 1 ? 'checked' : 'done',
    finished_at: now,
    updated_at: now,
  });
  if (row.dry_run !== 1) await deleteChunks(db, row.id);
}

async function fail(db: Queryable, importId: number, message: string): Promise<void> {
  await moveImport(db, importId, ['queued', 'running'], {
    state: 'failed',
    error: message.slice(0, 500),
    updated_at: Date.now(),
  });
}
