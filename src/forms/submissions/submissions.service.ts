/**
 * Submissions: the one accept function both doors (JSON and the hosted page) call, and the reads of stored submissions.
 * Accepting reads as its steps: find the open form, drop a honeypot catch, apply the bot defence, check every field,
 * then in one transaction store the sealed data, the signature evidence, the counters and the background work row, and
 * wake the worker.
 */
import { pipelineMetrics } from '../../http/pipeline-metrics.ts';
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/types.ts';
import { AppError, type ErrorDetail } from '../../errors/app-error.ts';
import { enqueueJob } from '../../jobs/jobs.repository.ts';
import { affirmationOf, componentsOf, HONEYPOT_FIELD } from '../definitions/definition.ts';
import type { Component, Upload } from '../components/component-types.ts';
import { openForm, requireForm, type FormRow } from '../definitions/forms.service.ts';
import { checkSubmission, type CheckedSubmission, type StoredFile } from './submission-check.ts';
import { botRefusal, checkBotDefence, type BotEvidence } from './bot-defence.ts';
import {
  countSubmission,
  findSubmission,
  findSubmissionByKey,
  insertSignature,
  insertSubmission,
  type SubmissionRow,
} from './submissions.repository.ts';
import { emailFieldOf, sealSubmitter, submitterEmailIn } from './submitter.ts';

/** The queue of work that follows a stored submission (notification, subscription). */
export const SUBMITTED_QUEUE = 'forms.submitted';
const DAY_MS = 86_400_000;

/** A submission as a door hands it over. */
export interface SubmissionInput {
  fields: Record<string, unknown>;
  /** Files by field name, or a function finding them among the form's components (with problems such as bad base64). */
  uploads:
    | Map<string, Upload>
    | ((components: Component[]) => { uploads: Map<string, Upload>; errors: ErrorDetail[] });
  ip: string;
  idempotencyKey?: string;
  /** What the door has for the form's bot defence (nothing: refused when the form has one). */
  bot?: BotEvidence;
}

/** What a stored submission's sealed data holds. */
export interface SubmissionData {
  form_data: Record<string, unknown>;
  files: StoredFile[];
}

/**
 * Accepts a submission of an open form; throws form.not_found, form.bot_check_failed or form.submission_invalid
 * (listing every failing field).
 */
export async function acceptSubmission(
  ctx: AppContext,
  formId: string,
  input: SubmissionInput,
): Promise<{ id: string; duplicate: boolean }> {
  const form = await openForm(ctx, formId);
  if (isBot(input.fields)) return { id: '', duplicate: true };
  const nonce = await checkBotDefence(ctx, form, input.bot, Date.now());
  const components = componentsOf(form.form_json);
  const files =
    typeof input.uploads === 'function' ? input.uploads(components) : { uploads: input.uploads, errors: [] };
  const checked = checkSubmission(components, input.fields, files.uploads);
  rejectInvalid([...files.errors, ...checked.errors]);
  const key = nonce ? `page:${nonce}` : input.idempotencyKey;
  const email = submitterEmailIn(checked.values, emailFieldOf(components));
  const stored = await store(ctx, form, checked, email, { ...input, idempotencyKey: key });
  if (stored.duplicate && nonce) await refuseReplay(ctx, form.id, key!, checked);
  if (!stored.duplicate) pipelineMetrics.formSubmissions.inc();
  return stored;
}

/** A check token already used: the same answers are a double submit (counted once), other answers a replay. */
async function refuseReplay(ctx: AppContext, formId: string, key: string, checked: CheckedSubmission) {
  const row = await findSubmissionByKey(ctx.database.db, formId, key);
  if (row && JSON.stringify(openSubmission(ctx, row).form_data) === JSON.stringify(checked.values)) return;
  throw botRefusal('replayed', 'the check token was already used for another response');
}

/** A filled-in honeypot field: the submission is answered as accepted and dropped. */
function isBot(fields: Record<string, unknown>): boolean {
  const v = fields[HONEYPOT_FIELD];
  return v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && v.every((x) => x === ''));
}

/** Throws one 422 naming every failing field (never their values). */
function rejectInvalid(errors: ErrorDetail[]): void {
  if (errors.length === 0) return;
  const names = [...new Set(errors.map((e) => e.field))];
  throw new AppError(
    'form.submission_invalid',
    `${names.length} field${names.length === 1 ? ' is' : 's are'} invalid: ${names.join(', ')}`,
    {
      details: errors,
    },
  );
}

async function store(
  ctx: AppContext,
  form: FormRow,
  checked: CheckedSubmission,
  submitterEmail: string | null,
  input: SubmissionInput,
) {
  const id = randomUUID();
  const now = Date.now();
  const data: SubmissionData = { form_data: checked.values, files: checked.files };
  // Sealed before the transaction: the shared writer waits for no encryption.
  const sealed = ctx.sealer.seal(JSON.stringify(data), `form_submission:${id}`);
  const sealedSubmitter = sealSubmitter(ctx, id, submitterEmail);
  const inserted = await ctx.committer.run(async (trx) => {
    const ok = await insertSubmission(trx, {
      id,
      form_id: form.id,
      customer_id: form.customer_id,
      form_version: form.version,
      data: sealed,
      submitter_email: sealedSubmitter,
      idempotency_key: input.idempotencyKey ?? null,
      created_at: now,
    });
    if (!ok) return false;
    await recordSignature(ctx, trx, form, id, checked, input.ip, now);
    await countSubmission(trx, form.id, form.customer_id, Math.floor(now / DAY_MS), now);
    await enqueueJob(trx, { queue: SUBMITTED_QUEUE, payload: { form_id: form.id, submission_id: id } }, now);
    return true;
  });
  if (inserted) ctx.wake(SUBMITTED_QUEUE);
  return { id, duplicate: !inserted };
}

/** For signable forms with a signature: the evidence (image or typed name, time, IP, confirmation label, form version). */
async function recordSignature(
  ctx: AppContext,
  trx: Queryable,
  form: FormRow,
  id: string,
  checked: CheckedSubmission,
  ip: string,
  now: number,
) {
  if (form.signable !== 1 || !checked.signature) return;
  await insertSignature(trx, {
    submission_id: id,
    form_id: form.id,
    form_version: form.version,
    field_name: checked.signature.fieldName,
    label: affirmationOf(form),
    ip,
    image: ctx.sealer.seal(checked.signature.value, `form_signature:${id}`),
    signed_at: now,
  });
}

/** Opens the sealed data of a stored submission. */
export function openSubmission(ctx: AppContext, row: SubmissionRow): SubmissionData {
  return JSON.parse(ctx.sealer.openText(row.data, `form_submission:${row.id}`)) as SubmissionData;
}

/** The opened data of a stored submission of a form, or undefined when there is none. */
export async function storedSubmissionData(
  ctx: AppContext,
  formId: string,
  submissionId: string,
): Promise<SubmissionData | undefined> {
  const row = await findSubmission(ctx.database.reader, formId, submissionId);
  return row && openSubmission(ctx, row);
}

/** One submission of one of the account's forms, or form.submission_not_found. */
export async function requireSubmission(
  ctx: AppContext,
  customerId: number,
  formId: string,
  submissionId: string,
) {
  const form = await requireForm(ctx, customerId, formId);
  const row = await findSubmission(ctx.database.reader, form.id, submissionId);
  if (!row) throw new AppError('form.submission_not_found', `submission ${submissionId} was not found`);
  return { form, row };
}
