/**
 * Reading stored submissions one at a time, as the console and the file download do: a newest-first page filtered by
 * dates and by text in the answers (the data is sealed, so the text search opens each submission it passes), one
 * submission with its signature evidence, and one uploaded file. Every read of protected content is audited here.
 */
import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors/app-error.ts';
import { record, type AuditActor } from '../../audit/audit.service.ts';
import { requireForm, type FormRow } from '../definitions/forms.service.ts';
import { openSubmission, requireSubmission, type SubmissionData } from './submissions.service.ts';
import { findSignature, submissionsBefore, type SubmissionRow } from './submissions.repository.ts';

const DAY_MS = 86_400_000;
/** Most submissions one page opens while searching, so a search with few matches stays quick; the page offers to go on. */
const SCAN_LIMIT = 2000;
const BATCH = 200;

/** Who reads, for the audit trail. */
export interface Reader {
  accountId: number;
  actor: AuditActor;
  ip: string;
}

/** What a page of submissions is filtered by. */
export interface BrowseQuery {
  search?: string;
  /** First day, YYYY-MM-DD (UTC). */
  from?: string;
  /** Last day, YYYY-MM-DD (UTC), included. */
  to?: string;
  /** Continue after this cursor (`<created_at>.<id>`). */
  before?: string;
  limit?: number;
}

/** One submission opened. */
export interface OpenedSubmission {
  row: SubmissionRow;
  data: SubmissionData;
}

function day(text: string | undefined, name: string): number | undefined {
  if (!text) return undefined;
  const t = Date.parse(`${text}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text) || Number.isNaN(t))
    throw new AppError('request.invalid', `${name} must be a date written YYYY-MM-DD`);
  return t;
}

function cursor(text: string | undefined): { createdAt: number; id: string } | null {
  if (!text) return null;
  const m = /^(\d{1,15})\.([\w-]{1,64})$/.exec(text);
  if (!m) throw new AppError('request.invalid', 'before must be the cursor of a page of responses');
  return { createdAt: Number(m[1]), id: m[2]! };
}

function matches(data: SubmissionData, needle: string): boolean {
  const values = Object.values(data.form_data).map((v) => (Array.isArray(v) ? v.join(' ') : String(v)));
  return [...values, ...data.files.map((f) => f.name)].some((v) => v.toLowerCase().includes(needle));
}

/** A newest-first page of a form's submissions matching the query; `next` continues it. Audited as one read. */
export async function browseSubmissions(ctx: AppContext, reader: Reader, formId: string, q: BrowseQuery) {
  const form = await requireForm(ctx, reader.accountId, formId);
  const from = day(q.from, 'from');
  const to = day(q.to, 'to');
  const limit = q.limit ?? 50;
  const needle = q.search?.trim().toLowerCase() ?? '';
  const items: OpenedSubmission[] = [];
  let before = cursor(q.before);
  let scanned = 0;
  let more = true;
  while (items.length < limit && scanned < SCAN_LIMIT) {
    const rows = await submissionsBefore(ctx.database.reader, form.id, {
      before,
      from,
      to: to && to + DAY_MS,
      limit: BATCH,
    });
    for (const row of rows) {
      scanned++;
      before = { createdAt: row.created_at, id: row.id };
      const data = openSubmission(ctx, row);
      if (!needle || matches(data, needle)) items.push({ row, data });
      if (items.length >= limit) break;
    }
    if (rows.length < BATCH && items.length < limit) {
      more = false;
      break;
    }
  }
  await audit(ctx, reader, 'form.submissions_read', `form:${form.id}`, {
    count: items.length,
    searched: needle !== '',
  });
  return { form, items, next: more && before ? `${before.createdAt}.${before.id}` : undefined };
}

/** One submission with its signature evidence (the mark opened). Audited. */
export async function readSubmission(ctx: AppContext, reader: Reader, formId: string, submissionId: string) {
  const { form, row } = await requireSubmission(ctx, reader.accountId, formId, submissionId);
  const data = openSubmission(ctx, row);
  const sig = await findSignature(ctx.database.reader, row.id);
  const signature = sig && { ...sig, mark: ctx.sealer.openText(sig.image, `form_signature:${row.id}`) };
  await audit(ctx, reader, 'form.submission_read', `form_submission:${row.id}`, { form_id: form.id });
  return { form, row, data, signature };
}

/** One uploaded file of a submission, by its field name, or form.file_not_found. Audited. */
export async function submissionFile(
  ctx: AppContext,
  reader: Reader,
  formId: string,
  submissionId: string,
  field: string,
) {
  const { row } = await requireSubmission(ctx, reader.accountId, formId, submissionId);
  const file = openSubmission(ctx, row).files.find((f) => f.field_name === field);
  if (!file)
    throw new AppError(
      'form.file_not_found',
      `submission ${submissionId} has no file in the field "${field}"`,
    );
  await audit(ctx, reader, 'form.file_download', `form_submission:${row.id}`, {
    field_name: field,
    size: file.size,
  });
  return { name: file.name, contentType: file.content_type, bytes: Buffer.from(file.content, 'base64') };
}

/** Records an export of a form's submissions. */
export async function auditExport(
  ctx: AppContext,
  reader: Reader,
  form: FormRow,
  what: string,
): Promise<void> {
  await audit(ctx, reader, 'form.export', `form:${form.id}`, { format: what });
}

async function audit(
  ctx: AppContext,
  reader: Reader,
  action: string,
  target: string,
  detail: Record<string, unknown>,
) {
  await record(ctx.database.db, {
    accountId: reader.accountId,
    actor: reader.actor,
    action,
    target,
    ip: reader.ip,
    detail,
  });
}
