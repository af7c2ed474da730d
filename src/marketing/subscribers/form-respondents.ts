/**
 * Where a marketing form's respondent becomes a subscriber of the form's subscription list: the submission's email
 * field (`email`, or else the first value that is an address) is created or updated as a subscriber and put on the
 * list, with `first_name` and `last_name` when the form has such fields.
 */
import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors/app-error.ts';
import { bulkCreate } from './subscribers.bulk.ts';
import { storedSubmissionData } from '../../forms/submissions/submissions.service.ts';
import type { Respondent } from '../../forms/forms.worker.ts';

const ADDRESS_LIKE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

/** The respondent's address in a submission's data: the `email` field, or else the first value that is an address. */
export function respondentEmail(data: Record<string, unknown>): string | undefined {
  return (
    text(data.email) ??
    Object.values(data)
      .map(text)
      .find((v) => v !== undefined && ADDRESS_LIKE.test(v))
  );
}

/** Adds a respondent to a subscription list; false (logged) when the submission has no email or the list is gone. */
export async function addRespondentToList(ctx: AppContext, r: Respondent): Promise<boolean> {
  const where = { formId: r.formId, submissionId: r.submissionId, subscriptionListId: r.subscriptionListId };
  const stored = await storedSubmissionData(ctx, r.formId, r.submissionId);
  if (!stored) return false;
  const data = stored.form_data;
  const email = respondentEmail(data);
  if (!email) {
    ctx.log.info(
      where,
      'marketing form respondent not added to its subscription list: the response holds no email address',
    );
    return false;
  }
  try {
    await bulkCreate(
      ctx,
      r.customerId,
      [{ email, first_name: text(data.first_name), last_name: text(data.last_name) }],
      r.subscriptionListId,
    );
    return true;
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    ctx.log.warn(
      { ...where, error: err.code },
      'marketing form respondent not added to its subscription list',
    );
    return false;
  }
}
