/**
 * Where a marketing form's respondent will become a subscriber of the form's subscription list. The marketing feature
 * (subscribers and lists) is not built yet, so this only logs; when it exists, this function calls its service.
 */
import type { AppContext } from '../context.ts';

/** What the marketing side will need to add a respondent. */
export interface Respondent {
  customerId: number;
  formId: string;
  submissionId: string;
  subscriptionListId: string;
}

/** Adds a respondent to a subscription list. Not built yet: logs and returns false. */
export async function addRespondentToList(ctx: AppContext, r: Respondent): Promise<boolean> {
  ctx.log.info(
    { formId: r.formId, submissionId: r.submissionId, subscriptionListId: r.subscriptionListId },
    'marketing form respondent not added to its subscription list: subscribers are not built yet',
  );
  return false;
}
