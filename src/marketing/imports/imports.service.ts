/**
 * Subscriber imports from CSV. An upload is stored in the database in text chunks (so any worker node can read it) with
 * its header line; the person maps columns to fields, then starts a dry run (counts what would change, writes nothing)
 * or the import; either pass is a background job (see import.run.ts) whose progress the import row holds. Rejected
 * rows are kept for a downloadable report. The file is removed when the import finishes.
 */
import { StringDecoder } from 'node:string_decoder';
import { Readable } from 'node:stream';
import type * as CsvParseSync from 'csv-parse/sync';
import type * as CsvStringify from 'csv-stringify';
import type { AppContext } from '../../context.ts';
import { enqueueJob } from '../../jobs/jobs.repository.ts';
import { AppError } from '../../errors/app-error.ts';
import { parseId } from '../ids.ts';
import { requireList } from '../lists/lists.service.ts';
import {
  chunkAt,
  deleteErrors,
  errorsAfter,
  findImport,
  insertChunk,
  insertImport,
  latestImports,
  moveImport,
  updateImport,
  type ImportRow,
} from './imports.repository.ts';
import { onFirstUse } from '../../on-first-use.ts';

const csvParseSync = onFirstUse<typeof CsvParseSync>('csv-parse/sync');
const csvStringify = onFirstUse<typeof CsvStringify>('csv-stringify');

/** The queue import passes run on. */
export const IMPORT_QUEUE = 'marketing.import';

/** What a CSV column may be mapped to; absent means ignored. */
export type ImportField = 'email' | 'first_name' | 'last_name' | 'custom';

/** Column index → field. */
export type ImportMapping = Record<string, ImportField>;

const FIELDS: readonly ImportField[] = ['email', 'first_name', 'last_name', 'custom'];

/** Why an account may email the people it imports; the importer names one, and the import keeps it. */
export const CONSENT_BASES = {
  opt_in: 'They asked to receive these emails (opt-in)',
  existing_relationship: 'They are existing patients or clients, and can unsubscribe',
  other_documented: 'Another basis, documented outside Sealpost',
} as const;

/** A consent basis an importer may choose. */
export type ConsentBasis = keyof typeof CONSENT_BASES;
const CHUNK_CHARS = 512 * 1024;

/** An import as pages, the command line and the progress endpoint show it. */
export interface ImportView {
  id: string;
  list_id: string;
  state: string;
  dry_run: boolean;
  file_name: string;
  columns: string[];
  mapping: ImportMapping;
  total_bytes: number;
  read_bytes: number;
  percent: number;
  rows_done: number;
  added: number;
  updated: number;
  failed: number;
  error: string | null;
  consent_basis: ConsentBasis | null;
}

/** Stores an uploaded CSV file for an import into a list and reads its header; the import waits for a mapping. */
export async function uploadImport(
  ctx: AppContext,
  customerId: number,
  input: {
    listId: string | number;
    fileName: string;
    source: AsyncIterable<Buffer | string>;
    createdBy: string;
  },
): Promise<ImportView> {
  const db = ctx.database.db;
  const list = await requireList(db, customerId, input.listId);
  const now = Date.now();
  const id = await insertImport(db, {
    customer_id: customerId,
    list_id: list.uuid,
    state: 'uploaded',
    dry_run: 0,
    file_name: input.fileName.slice(0, 255) || 'upload.csv',
    columns: '[]',
    mapping: '{}',
    total_bytes: 0,
    created_by: input.createdBy,
    created_at: now,
    updated_at: now,
  });
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let seq = 0;
  let bytes = 0;
  let header: string | undefined;
  const flush = async (all: boolean) => {
    while (pending.length >= CHUNK_CHARS || (all && pending.length > 0)) {
      const part = pending.slice(0, CHUNK_CHARS);
      pending = pending.slice(part.length);
      header ??= part;
      await insertChunk(db, id, seq++, part);
    }
  };
  for await (const piece of input.source) {
    bytes += typeof piece === 'string' ? Buffer.byteLength(piece) : piece.length;
    pending += typeof piece === 'string' ? piece : decoder.write(piece);
    await flush(false);
  }
  pending += decoder.end();
  await flush(true);
  const columns = headerColumns(header ?? '');
  await updateImport(db, id, {
    columns: JSON.stringify(columns),
    mapping: JSON.stringify(guessMapping(columns)),
    total_bytes: bytes,
    updated_at: Date.now(),
  });
  return view((await findImport(db, customerId, id))!);
}

/** Checks a mapping and queues a dry run or the import (for the worker, or with `queue` false for the caller to run). */
export async function startImport(
  ctx: AppContext,
  customerId: number,
  rawId: string,
  mapping: ImportMapping,
  dryRun: boolean,
  queue = true,
  consentBasis: ConsentBasis | null = null,
): Promise<ImportView> {
  const db = ctx.database.db;
  const row = await requireImport(ctx, customerId, rawId);
  const clean = checkMapping(mapping, JSON.parse(row.columns) as string[]);
  if (consentBasis !== null && !(consentBasis in CONSENT_BASES))
    throw new AppError('marketing.import_invalid', `"${String(consentBasis)}" is not a consent basis`);
  const now = Date.now();
  const moved = await db.transaction().execute(async (trx) => {
    const ok = await moveImport(trx, row.id, ['uploaded', 'checked', 'failed'], {
      state: 'queued',
      dry_run: dryRun ? 1 : 0,
      mapping: JSON.stringify(clean),
      consent_basis: consentBasis,
      read_bytes: 0,
      rows_done: 0,
      added: 0,
      updated: 0,
      failed: 0,
      error: null,
      finished_at: null,
      updated_at: now,
    });
    if (!ok) return false;
    await deleteErrors(trx, row.id);
    if (queue) await enqueueJob(trx, { queue: IMPORT_QUEUE, payload: { importId: row.id } }, now);
    return true;
  });
  if (!moved)
    throw new AppError(
      'marketing.import_state',
      `import ${row.id} is ${row.state}; ${row.state === 'done' ? 'upload the file again' : 'wait for it to finish'}`,
    );
  if (queue) ctx.wake(IMPORT_QUEUE);
  return view((await findImport(db, customerId, row.id))!);
}

/** One import of the account. */
export async function importOf(ctx: AppContext, customerId: number, rawId: string): Promise<ImportView> {
  return view(await requireImport(ctx, customerId, rawId));
}

/** The account's latest imports, newest first. */
export async function importsOf(ctx: AppContext, customerId: number, limit = 20): Promise<ImportView[]> {
  return (await latestImports(ctx.database.reader, customerId, limit)).map(view);
}

/** The rejected rows of an import as a CSV stream: line, email, reason. */
export async function errorReport(
  ctx: AppContext,
  customerId: number,
  rawId: string,
): Promise<NodeJS.ReadableStream> {
  const row = await requireImport(ctx, customerId, rawId);
  const db = ctx.database.reader;
  async function* lines(): AsyncGenerator<(string | number)[]> {
    yield ['line', 'email', 'reason'];
    let after = 0;
    for (;;) {
      const rows = await errorsAfter(db, row.id, after, 1000);
      if (rows.length === 0) return;
      for (const r of rows) yield [r.line, r.email, r.message];
      after = rows[rows.length - 1]!.line;
    }
  }
  return Readable.from(lines()).pipe(csvStringify().stringify());
}

async function requireImport(ctx: AppContext, customerId: number, rawId: string): Promise<ImportRow> {
  const id = parseId(rawId);
  const row = id === null ? undefined : await findImport(ctx.database.db, customerId, id);
  if (!row) throw new AppError('marketing.import_not_found', `import ${rawId} was not found`);
  return row;
}

function headerColumns(text: string): string[] {
  const firstLine = text.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '';
  const columns = firstLine.trim()
    ? ((csvParseSync().parse(firstLine, { relax_quotes: true }) as string[][])[0] ?? [])
    : [];
  if (columns.length === 0)
    throw new AppError('marketing.import_invalid', 'the file is empty or has no header line');
  return columns.map((c) => c.trim());
}

/** The mapping a header suggests: email, first and last name by their usual names; other columns become custom fields. */
export function guessMapping(columns: string[]): ImportMapping {
  const out: ImportMapping = {};
  columns.forEach((c, i) => {
    const k = c.toLowerCase().replace(/[\s_-]+/g, '');
    if (['email', 'emailaddress', 'mail', 'e-mail'].includes(k)) out[i] = 'email';
    else if (['firstname', 'givenname', 'first'].includes(k)) out[i] = 'first_name';
    else if (['lastname', 'surname', 'familyname', 'last'].includes(k)) out[i] = 'last_name';
    else if (!['status', 'createdat', 'phonenumber', 'phone'].includes(k)) out[i] = 'custom';
  });
  return out;
}

function checkMapping(mapping: ImportMapping, columns: string[]): ImportMapping {
  const clean: ImportMapping = {};
  for (const [k, v] of Object.entries(mapping)) {
    const i = Number(k);
    if (!Number.isInteger(i) || i < 0 || i >= columns.length || !FIELDS.includes(v))
      throw new AppError('marketing.import_invalid', `column ${k} cannot be mapped to "${String(v)}"`);
    clean[i] = v;
  }
  const emails = Object.values(clean).filter((v) => v === 'email').length;
  if (emails !== 1)
    throw new AppError('marketing.import_invalid', 'map exactly one column to the email address');
  return clean;
}

function view(r: ImportRow): ImportView {
  return {
    id: String(r.id),
    list_id: r.list_id,
    state: r.state,
    dry_run: r.dry_run === 1,
    file_name: r.file_name,
    columns: JSON.parse(r.columns) as string[],
    mapping: JSON.parse(r.mapping) as ImportMapping,
    total_bytes: r.total_bytes,
    read_bytes: r.read_bytes,
    percent:
      r.state === 'done' || r.state === 'checked'
        ? 100
        : r.total_bytes > 0
          ? Math.min(99, Math.floor((r.read_bytes / r.total_bytes) * 100))
          : 0,
    rows_done: r.rows_done,
    added: r.added,
    updated: r.updated,
    failed: r.failed,
    error: r.error,
    consent_basis: (r.consent_basis as ConsentBasis | null) ?? null,
  };
}

/**
 * The first data rows of an uploaded file, as its columns are mapped now: what the person checks before a run. Empty
 * once the file is gone (after the import) or when its start cannot be read as CSV.
 */
export async function previewImport(
  ctx: AppContext,
  customerId: number,
  rawId: string,
  rows = 5,
): Promise<string[][]> {
  const row = await requireImport(ctx, customerId, rawId);
  const first = await chunkAt(ctx.database.reader, row.id, 0);
  if (first === undefined) return [];
  // The last line of the first chunk is cut off when more follows: read whole lines only, the header and `rows` more.
  const lines = first.replace(/^\uFEFF/, '').split(/\r?\n/);
  const whole =
    lines.length > rows + 1
      ? lines.slice(0, rows + 1)
      : (await chunkAt(ctx.database.reader, row.id, 1)) !== undefined
        ? lines.slice(0, -1)
        : lines;
  try {
    const records = csvParseSync().parse(whole.join('\n'), {
      relax_quotes: true,
      relax_column_count: true,
      skip_empty_lines: true,
    }) as string[][];
    return records.slice(1, rows + 1);
  } catch {
    return [];
  }
}

/** The first rejected rows of an import's last run: line, email and reason. */
export async function rejectedRows(ctx: AppContext, customerId: number, rawId: string, limit = 20) {
  const row = await requireImport(ctx, customerId, rawId);
  return errorsAfter(ctx.database.reader, row.id, 0, limit);
}
