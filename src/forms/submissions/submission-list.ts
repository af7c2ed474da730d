/**
 * A form's submissions as the API lists them: a page newest or oldest first, or ordered by submitter email, or only
 * the submission asked for; each record with `form_data` as a JSON string and its submitter's address.
 *
 * Submissions stay sealed, so no index can order them by address. Ordering by `submitter_email` walks the form's
 * submissions in keyset batches, opens only each one's sealed address, and keeps the best `page × items` keys in a
 * bounded sorted window; memory stays bounded by that window whatever the number of submissions. Pages beyond
 * SORT_WINDOW submissions are refused.
 */
import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors/app-error.ts';
import { componentsOf } from '../definitions/definition.ts';
import { requireForm } from '../definitions/forms.service.ts';
import type { SubmissionRecord, SubmissionsQuery } from '../definitions/forms.schemas.ts';
import { openSubmission } from './submissions.service.ts';
import {
  findSubmission,
  findSubmissions,
  listSubmissions,
  signedSubmissionIds,
  submitterKeysAfter,
  type SubmissionRow,
} from './submissions.repository.ts';
import { emailFieldOf, openSubmitter, submitterEmailIn } from './submitter.ts';

/** The deepest position (page × items) a listing ordered by submitter email reaches. */
export const SORT_WINDOW = 10_000;
const BATCH = 500;

interface Window {
  order: 'asc' | 'desc';
  limit: number;
  offset: number;
  id?: string;
}

/** What a submission is ordered by: its address (lower-cased, null last), then time and id. */
interface SortKey {
  id: string;
  createdAt: number;
  email: string | null;
}

/** A stored submission as the API returns it, with form_data as a JSON string. */
function submissionRecord(
  ctx: AppContext,
  row: SubmissionRow,
  signed: boolean,
  emailField: string | undefined,
): SubmissionRecord {
  const data = openSubmission(ctx, row);
  const stored = openSubmitter(ctx, row);
  return {
    id: row.id,
    form_id: row.form_id,
    form_version: row.form_version,
    form_data: JSON.stringify(data.form_data),
    submitter_email: stored === undefined ? submitterEmailIn(data.form_data, emailField) : stored,
    attachments: data.files.map((f) => ({
      field_name: f.field_name,
      name: f.name,
      content_type: f.content_type,
      size: f.size,
    })),
    signed,
    created_at: new Date(row.created_at).toISOString(),
  };
}

/** One page of a form's submissions; `total` is the form's maintained submission_count (0 or 1 for one asked by id). */
export async function submissionsOf(
  ctx: AppContext,
  customerId: number,
  formId: string,
  q: SubmissionsQuery,
) {
  const form = await requireForm(ctx, customerId, formId);
  const items = q.items ?? 50;
  const page = q.page ?? 1;
  const emailField = emailFieldOf(componentsOf(form.form_json));
  const w: Window = {
    order: q.order?.toLowerCase() === 'asc' ? 'asc' : 'desc',
    limit: items,
    offset: (page - 1) * items,
    id: q.submission_id,
  };
  const db = ctx.database.reader;
  const rows =
    q.order_by === 'submitter_email' && w.id === undefined
      ? await bySubmitter(ctx, form.id, emailField, w)
      : await listSubmissions(db, form.id, w);
  const total =
    w.id === undefined ? form.submission_count : (await findSubmission(db, form.id, w.id)) ? 1 : 0;
  const signed = new Set(
    await signedSubmissionIds(
      db,
      rows.map((r) => r.id),
    ),
  );
  return {
    data: rows.map((r) => submissionRecord(ctx, r, signed.has(r.id), emailField)),
    total,
    page,
    items,
  };
}

/** The window of a form's submissions ordered by submitter email. */
async function bySubmitter(
  ctx: AppContext,
  formId: string,
  emailField: string | undefined,
  w: Window,
): Promise<SubmissionRow[]> {
  const keep = w.offset + w.limit;
  if (keep > SORT_WINDOW)
    throw new AppError(
      'request.invalid',
      `ordered by submitter_email, pages reach the first ${SORT_WINDOW} submissions`,
      { details: [{ field: 'page', message: `page × items must be at most ${SORT_WINDOW}` }] },
    );
  const db = ctx.database.reader;
  const cmp = compareKeys(w.order);
  const best: SortKey[] = [];
  let after: { createdAt: number; id: string } | null = null;
  for (;;) {
    const rows = await submitterKeysAfter(db, formId, after, BATCH);
    for (const r of rows) keepBest(best, await sortKey(ctx, formId, r, emailField), keep, cmp);
    if (rows.length < BATCH) break;
    const last = rows[rows.length - 1]!;
    after = { createdAt: Number(last.created_at), id: last.id };
  }
  const ids = best.slice(w.offset).map((k) => k.id);
  const found = new Map((await findSubmissions(db, formId, ids)).map((r) => [r.id, r]));
  return ids.flatMap((id) => found.get(id) ?? []);
}

/** A submission's sort key; one stored before addresses were sealed apart is opened whole. */
async function sortKey(
  ctx: AppContext,
  formId: string,
  r: Pick<SubmissionRow, 'id' | 'created_at' | 'submitter_email'>,
  emailField: string | undefined,
): Promise<SortKey> {
  let email = openSubmitter(ctx, r);
  if (email === undefined) {
    const row = emailField ? await findSubmission(ctx.database.reader, formId, r.id) : undefined;
    email = row ? submitterEmailIn(openSubmission(ctx, row).form_data, emailField) : null;
  }
  return { id: r.id, createdAt: Number(r.created_at), email: email?.toLowerCase() ?? null };
}

function compareKeys(order: 'asc' | 'desc') {
  const dir = order === 'asc' ? 1 : -1;
  const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return (a: SortKey, b: SortKey): number => {
    if (a.email !== b.email) {
      if (a.email === null) return 1;
      if (b.email === null) return -1;
      return text(a.email, b.email) * dir;
    }
    return (a.createdAt - b.createdAt || text(a.id, b.id)) * dir;
  };
}

/** Inserts `key` into the sorted window `best`, keeping at most `size` keys. */
function keepBest(best: SortKey[], key: SortKey, size: number, cmp: (a: SortKey, b: SortKey) => number) {
  let lo = 0;
  let hi = best.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cmp(best[mid]!, key) <= 0) lo = mid + 1;
    else hi = mid;
  }
  if (lo >= size) return;
  best.splice(lo, 0, key);
  if (best.length > size) best.pop();
}
