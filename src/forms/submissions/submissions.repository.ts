/** SQL of form submissions, signature evidence and the counters a submission bumps. */
import { sql, type ExpressionBuilder, type Insertable, type Selectable } from 'kysely';
import type { DB, FormSignaturesTable, FormSubmissionsTable, Queryable } from '../../db/types.ts';

/** A stored submission (its data sealed). */
export type SubmissionRow = Selectable<FormSubmissionsTable>;

/**
 * Inserts a submission unless one with the same idempotency key exists for the form; returns whether it was inserted.
 * The duplicate is skipped with ON CONFLICT DO NOTHING, so an enclosing transaction stays usable.
 */
export async function insertSubmission(
  db: Queryable,
  row: Insertable<FormSubmissionsTable>,
): Promise<boolean> {
  const res = await db
    .insertInto('form_submissions')
    .values(row)
    .onConflict((oc) => oc.columns(['form_id', 'idempotency_key']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return res !== undefined;
}

/** The submission a form stored under an idempotency key, if any. */
export async function findSubmissionByKey(
  db: Queryable,
  formId: string,
  key: string,
): Promise<SubmissionRow | undefined> {
  return db
    .selectFrom('form_submissions')
    .selectAll()
    .where('form_id', '=', formId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
}

/** Inserts the signature evidence of a submission. */
export async function insertSignature(db: Queryable, row: Insertable<FormSignaturesTable>): Promise<void> {
  await db.insertInto('form_signatures').values(row).execute();
}

/** Adds one to the form's submission_count and to its counter of the day. */
export async function countSubmission(
  db: Queryable,
  formId: string,
  customerId: number,
  day: number,
  now: number,
): Promise<void> {
  await db
    .updateTable('forms')
    .set({ submission_count: sql`submission_count + 1`, updated_at: now })
    .where('id', '=', formId)
    .execute();
  await db
    .insertInto('form_daily_counts')
    .values({ form_id: formId, customer_id: customerId, day, count: 1 })
    .onConflict((oc) =>
      oc.columns(['form_id', 'day']).doUpdateSet({ count: sql`form_daily_counts.count + 1` }),
    )
    .execute();
}

/** One page of a form's submissions (only the one with id `id`, when given), newest or oldest first. */
export async function listSubmissions(
  db: Queryable,
  formId: string,
  opts: { order: 'asc' | 'desc'; limit: number; offset: number; id?: string },
): Promise<SubmissionRow[]> {
  let qb = db.selectFrom('form_submissions').selectAll().where('form_id', '=', formId);
  if (opts.id !== undefined) qb = qb.where('id', '=', opts.id);
  return qb
    .orderBy('created_at', opts.order)
    .orderBy('id', opts.order)
    .limit(opts.limit)
    .offset(opts.offset)
    .execute();
}

/** Rows after a keyset position (created_at, id), in ascending order. */
const afterKey =
  (after: { createdAt: number; id: string }) => (eb: ExpressionBuilder<DB, 'form_submissions'>) =>
    eb.or([
      eb('created_at', '>', after.createdAt),
      eb.and([eb('created_at', '=', after.createdAt), eb('id', '>', after.id)]),
    ]);

/** The next batch of a form's submissions after `after` (created_at, id), oldest first: keyset paging for exports. */
export async function submissionsAfter(
  db: Queryable,
  formId: string,
  after: { createdAt: number; id: string } | null,
  limit: number,
): Promise<SubmissionRow[]> {
  let qb = db.selectFrom('form_submissions').selectAll().where('form_id', '=', formId);
  if (after) qb = qb.where(afterKey(after));
  return qb.orderBy('created_at').orderBy('id').limit(limit).execute();
}

/** The next batch of a form's submissions after `after`, oldest first, as what ordering them by submitter needs. */
export async function submitterKeysAfter(
  db: Queryable,
  formId: string,
  after: { createdAt: number; id: string } | null,
  limit: number,
): Promise<Pick<SubmissionRow, 'id' | 'created_at' | 'submitter_email'>[]> {
  let qb = db
    .selectFrom('form_submissions')
    .select(['id', 'created_at', 'submitter_email'])
    .where('form_id', '=', formId);
  if (after) qb = qb.where(afterKey(after));
  return qb.orderBy('created_at').orderBy('id').limit(limit).execute();
}

/** These submissions of a form, in no particular order. */
export async function findSubmissions(
  db: Queryable,
  formId: string,
  ids: string[],
): Promise<SubmissionRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('form_submissions')
    .selectAll()
    .where('form_id', '=', formId)
    .where('id', 'in', ids)
    .execute();
}

/** One submission of a form. */
export async function findSubmission(
  db: Queryable,
  formId: string,
  id: string,
): Promise<SubmissionRow | undefined> {
  return db
    .selectFrom('form_submissions')
    .selectAll()
    .where('form_id', '=', formId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The signature evidence of a submission. */
export async function findSignature(
  db: Queryable,
  submissionId: string,
): Promise<Selectable<FormSignaturesTable> | undefined> {
  return db
    .selectFrom('form_signatures')
    .selectAll()
    .where('submission_id', '=', submissionId)
    .executeTakeFirst();
}

/** Which of these submissions have signature evidence. */
export async function signedSubmissionIds(db: Queryable, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('form_signatures')
    .select('submission_id')
    .where('submission_id', 'in', ids)
    .execute();
  return rows.map((r) => r.submission_id);
}

/** The next batch of a form's submissions, newest first, before `before` (created_at, id) and within [from, to). */
export async function submissionsBefore(
  db: Queryable,
  formId: string,
  opts: { before: { createdAt: number; id: string } | null; from?: number; to?: number; limit: number },
): Promise<SubmissionRow[]> {
  let qb = db.selectFrom('form_submissions').selectAll().where('form_id', '=', formId);
  if (opts.from !== undefined) qb = qb.where('created_at', '>=', opts.from);
  if (opts.to !== undefined) qb = qb.where('created_at', '<', opts.to);
  const b = opts.before;
  if (b)
    qb = qb.where((eb) =>
      eb.or([
        eb('created_at', '<', b.createdAt),
        eb.and([eb('created_at', '=', b.createdAt), eb('id', '<', b.id)]),
      ]),
    );
  return qb.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(opts.limit).execute();
}
