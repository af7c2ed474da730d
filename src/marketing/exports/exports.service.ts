/**
 * Exports as background jobs: a request records the job and its work row and answers at once with the job id and a
 * download key shown only then. The worker walks the matching subscribers in id order, a batch at a time, writing each
 * batch as one sealed CSV chunk together with the progress, so memory stays flat however long the list; the download
 * streams the chunks back one at a time. After the fixed columns comes one column per custom field type the account
 * had when the job started (recorded with the job, so the header always matches the rows).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Readable } from 'node:stream';
import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors/app-error.ts';
import { enqueueJob } from '../../jobs/jobs.repository.ts';
import { csvCell } from '../../forms/submissions/exports.ts';
import { parseId } from '../ids.ts';
import { pageAsked, pagedAnswer } from '../paging.ts';
import {
  countSubscribers,
  fieldTypesOf,
  fieldValuesOfMany,
  subscribersAfter,
  type SubscriberMatch,
} from '../subscribers/rows.service.ts';
import {
  exportAudience,
  exportRecipient,
  type ExportAudience,
  type SubscribersExportBody,
} from './export-audience.ts';
import { mailExportLink } from './export-mail.ts';
import { filterSql, filtersOf, requireDynamicList } from '../segments/segments.service.ts';
import {
  clearChunks,
  countBulkJobs,
  findBulkJob,
  findChunk,
  insertBulkJob,
  insertChunk,
  listBulkJobs,
  updateBulkJob,
  type BulkJobRow,
} from './exports.repository.ts';

/** The queue of export work rows. */
export const EXPORT_QUEUE = 'marketing.export';
/** Subscribers per chunk of output (one transaction each). */
export const EXPORT_BATCH = 2000;

const HEADER = [
  'id',
  'email',
  'first_name',
  'last_name',
  'phone_number',
  'unsubscribed',
  'created_at',
  'updated_at',
];

/** What an export takes: the audience, as the subscribers list selects it, and who is told when it is ready. */
interface ExportParams extends ExportAudience {
  email?: string | null;
  /** The account's custom field types, in column order, recorded when the job starts running. */
  fieldTypes?: { id: number; name: string }[];
}

/** A job as shown. */
export function jobView(j: BulkJobRow, prefix: string) {
  const done = Number(j.rows_done);
  const total = j.rows_total === null ? null : Number(j.rows_total);
  return {
    id: String(j.id),
    type: 'bulk_job' as const,
    attributes: {
      kind: j.kind,
      state: j.state,
      rows_done: done,
      rows_total: total,
      progress: total ? Math.min(1, done / total) : j.state === 'finished' ? 1 : 0,
      download_url: j.state === 'finished' ? `${prefix}/bulk_jobs/${j.id}/download?key=<download_key>` : null,
      error: j.error,
      created_at: new Date(Number(j.created_at)).toISOString(),
      finished_at: j.finished_at === null ? null : new Date(Number(j.finished_at)).toISOString(),
    },
  };
}

/**
 * A job as the bulk_jobs reads show it: its view with batch totals counted in rows (`total_jobs`, `pending`) and the
 * rows a failed job left undone (`failures`).
 */
export function jobStatus(j: BulkJobRow, prefix: string) {
  const total = j.rows_total === null ? null : Number(j.rows_total);
  const left = total === null ? null : Math.max(0, total - Number(j.rows_done));
  const failed = j.state === 'failed';
  return {
    ...jobView(j, prefix),
    total_jobs: total,
    pending: failed ? 0 : left,
    failures: failed ? Math.max(1, left ?? 1) : 0,
  };
}

const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');

/**
 * `POST /subscribers_export_csv` and `/export_dynamic_list_csv`: records the job and answers its id (also as `jid`),
 * the download key and the address the finished export will be announced to (`sent_to_email`).
 */
export async function startExport(
  ctx: AppContext,
  customerId: number,
  kind: 'subscribers_export' | 'dynamic_list_export',
  body: SubscribersExportBody & { dynamic_list_id?: string | number },
  prefix: string,
) {
  const db = ctx.database.db;
  const email = exportRecipient(body);
  let params: ExportParams;
  if (kind === 'dynamic_list_export') {
    if (body.dynamic_list_id === undefined)
      throw new AppError('request.invalid', 'dynamic_list_id is required', {
        details: [{ field: 'dynamic_list_id', message: 'is required' }],
      });
    params = {
      listId: null,
      filters: filtersOf(await requireDynamicList(db, customerId, body.dynamic_list_id)),
    };
  } else params = await exportAudience(ctx, customerId, body);
  params.email = email;
  const key = randomBytes(24).toString('base64url');
  const now = Date.now();
  const id = await db.transaction().execute(async (trx) => {
    const jobId = await insertBulkJob(trx, {
      customer_id: customerId,
      kind,
      state: 'queued',
      params: JSON.stringify(params),
      rows_total: null,
      key_hash: hashKey(key),
      error: null,
      created_at: now,
      updated_at: now,
      finished_at: null,
    });
    await enqueueJob(trx, { queue: EXPORT_QUEUE, payload: { jobId }, uniqueKey: `bulk_job:${jobId}` }, now);
    return jobId;
  });
  ctx.wake(EXPORT_QUEUE);
  const job = (await findBulkJob(db, customerId, id))!;
  return { data: { ...jobView(job, prefix), download_key: key, jid: String(id), sent_to_email: email } };
}

/** `GET /bulk_jobs`. */
export async function bulkJobsOf(
  ctx: AppContext,
  customerId: number,
  q: { use_pagination?: boolean; page?: number; items?: number },
  prefix: string,
) {
  const page = pageAsked(q) ?? { page: 1, items: 100, limit: 100, offset: 0 };
  const db = ctx.database.reader;
  const [rows, total] = await Promise.all([
    listBulkJobs(db, customerId, page.limit, page.offset),
    countBulkJobs(db, customerId),
  ]);
  return pagedAnswer(
    rows.map((r) => jobStatus(r, prefix)),
    q.use_pagination ? page : null,
    total,
  );
}

/** A job of the account by an id as sent. */
export async function requireBulkJob(ctx: AppContext, customerId: number, raw: string): Promise<BulkJobRow> {
  const id = parseId(raw);
  const row = id === null ? undefined : await findBulkJob(ctx.database.reader, customerId, id);
  if (!row) throw new AppError('marketing.bulk_job_not_found', `bulk job ${raw} was not found`);
  return row;
}

/** The CSV of a finished export as a stream of its chunks, opened one at a time; the key must be the one given at start. */
export async function downloadExport(
  ctx: AppContext,
  customerId: number,
  raw: string,
  key: string | undefined,
): Promise<Readable> {
  const job = await requireBulkJob(ctx, customerId, raw);
  const given = Buffer.from(hashKey(key ?? ''), 'hex');
  if (!key || !timingSafeEqual(given, Buffer.from(job.key_hash, 'hex')))
    throw new AppError(
      'marketing.download_key_invalid',
      'the download needs the key given when the export was started',
    );
  return exportCsv(ctx, job);
}

/** The CSV of a finished export of the account, for a signed-in console user (the console checks the permission). */
export async function exportCsvOf(ctx: AppContext, customerId: number, raw: string): Promise<Readable> {
  return exportCsv(ctx, await requireBulkJob(ctx, customerId, raw));
}

function exportCsv(ctx: AppContext, job: BulkJobRow): Readable {
  if (job.state !== 'finished')
    throw new AppError('marketing.bulk_job_not_ready', `bulk job ${job.id} is ${job.state}`);
  const db = ctx.database.reader;
  const chunks = Number(job.chunks);
  const fieldNames = ((JSON.parse(job.params) as ExportParams).fieldTypes ?? []).map((f) => f.name);
  return Readable.from(
    (async function* () {
      yield `${[...HEADER, ...fieldNames.map(csvCell)].join(',')}\r\n`;
      for (let seq = 0; seq < chunks; seq++) {
        const data = await findChunk(db, job.id, seq);
        if (data !== undefined) yield ctx.sealer.openText(data, `bulk_job:${job.id}:${seq}`);
      }
    })(),
  );
}

/** Runs one export job from the start: counts the audience, then writes it a batch at a time. */
export async function runExport(ctx: AppContext, jobId: number, batch = EXPORT_BATCH): Promise<void> {
  const db = ctx.database.db;
  const job = await findBulkJob(db, null, jobId);
  if (!job || job.state === 'finished') return;
  const customerId = Number(job.customer_id);
  const params = JSON.parse(job.params) as ExportParams;
  const match: SubscriberMatch = {
    words: params.words ?? [],
    listId: params.listId,
    filter: filterSql(params.filters, customerId, Number(job.created_at)),
    only: params.only,
    except: params.except,
  };
  await clearChunks(db, jobId);
  const total = await countSubscribers(ctx.database.reader, customerId, match);
  const fieldTypes = await fieldTypesOf(ctx.database.reader, customerId);
  await updateBulkJob(db, jobId, {
    params: JSON.stringify({ ...params, fieldTypes }),
    state: 'running',
    rows_total: total,
    rows_done: 0,
    chunks: 0,
    updated_at: Date.now(),
  });
  let after = 0;
  let done = 0;
  for (let seq = 0; ; seq++) {
    const rows = await subscribersAfter(ctx.database.reader, customerId, match, after, batch);
    if (rows.length === 0) break;
    const values = await fieldValuesOfMany(
      ctx.database.reader,
      rows.map((r) => Number(r.id)),
    );
    const text = rows
      .map((s) =>
        [
          s.uuid,
          s.email,
          s.first_name ?? '',
          s.last_name ?? '',
          s.phone_number ?? '',
          s.unsubscribed === 1 ? 'true' : 'false',
          iso(s.created_at),
          iso(s.updated_at),
          ...fieldTypes.map((f) => values.get(Number(s.id))?.get(f.id) ?? ''),
        ]
          .map(csvCell)
          .join(','),
      )
      .join('\r\n');
    done += rows.length;
    after = Number(rows[rows.length - 1]!.id);
    await db.transaction().execute(async (trx) => {
      await insertChunk(trx, jobId, seq, ctx.sealer.seal(`${text}\r\n`, `bulk_job:${jobId}:${seq}`));
      await updateBulkJob(trx, jobId, { rows_done: done, chunks: seq + 1, updated_at: Date.now() });
    });
  }
  const now = Date.now();
  await updateBulkJob(db, jobId, { state: 'finished', rows_done: done, finished_at: now, updated_at: now });
  if (params.email) await mailExportLink(ctx, { id: jobId, customerId, rows: done }, params.email);
}

/** Marks a job failed for good. */
export async function failExport(ctx: AppContext, jobId: number, error: string): Promise<void> {
  const now = Date.now();
  await updateBulkJob(ctx.database.db, jobId, {
    state: 'failed',
    error: error.slice(0, 500),
    finished_at: now,
    updated_at: now,
  });
}

const iso = (ms: number) => new Date(Number(ms)).toISOString();
