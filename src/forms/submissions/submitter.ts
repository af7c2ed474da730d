/**
 * The submitter's address of a submission: the value of the form's email field (the first field with the `Email`
 * input mask, else the field named `email`), or null when the form has no such field or the respondent left it empty.
 * It is sealed on its own beside the data, so ordering by it opens a few bytes per submission.
 */
import type { AppContext } from '../../context.ts';
import { isField } from '../components/components.ts';
import { fieldName, str, type Component } from '../components/component-types.ts';
import type { SubmissionRow } from './submissions.repository.ts';

/** The field name of the form's email field, or undefined when it has none. */
export function emailFieldOf(components: Component[]): string | undefined {
  const fields = components.filter(isField);
  const masked = fields.find((c) => str(c, 'input_mask') === 'Email');
  const field = masked ?? fields.find((c) => fieldName(c).toLowerCase() === 'email');
  return field && fieldName(field);
}

/** The submitter's address in a submission's values, or null. */
export function submitterEmailIn(values: Record<string, unknown>, field: string | undefined): string | null {
  const v = field ? values[field] : undefined;
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : null;
}

const aad = (submissionId: string) => `form_submission_email:${submissionId}`;

/** The sealed column value for a new submission ('' sealed when there is no address). */
export function sealSubmitter(ctx: AppContext, submissionId: string, email: string | null): string {
  return ctx.sealer.seal(email ?? '', aad(submissionId));
}

/** The submitter's address from the sealed column, or undefined when the submission predates it. */
export function openSubmitter(ctx: AppContext, row: Pick<SubmissionRow, 'id' | 'submitter_email'>) {
  if (row.submitter_email === null || row.submitter_email === undefined) return undefined;
  return ctx.sealer.openText(row.submitter_email, aad(row.id)) || null;
}
