/**
 * Background work after a submission is stored (one row per submission on the forms.submitted queue): a notification
 * to the form's recipient addresses through the transactional pipeline, holding no submitted data, only a link; and
 * for a marketing form, the hand-over of the respondent to its subscription list.
 */
import { brandOf } from '../accounts/brand.service.ts';
import { brandedEmail } from '../mail/branded-email.ts';
import { consoleUrl, type AppContext } from '../context.ts';
import type { QueueSpec } from '../jobs/worker.ts';
import type { BackgroundWork } from '../jobs/jobs.worker.ts';
import { verifiedDomainNames } from '../accounts/domains.service.ts';
import { parseMailbox, type Mailbox } from '../mail/addresses.ts';
import { submitSystemMail } from '../email/system-mail.ts';
import { findUndeletedForm, type FormRow } from './definitions/forms.service.ts';
import { SUBMITTED_QUEUE } from './submissions/submissions.service.ts';

interface SubmittedJob {
  form_id: string;
  submission_id: string;
}

/** A marketing form's respondent, to be added to the form's subscription list. */
export interface Respondent {
  customerId: number;
  formId: string;
  submissionId: string;
  subscriptionListId: string;
}

/** Adds a respondent to its list (marketing does this); false when the response could not be added. */
export type RespondentHandOver = (ctx: AppContext, r: Respondent) => Promise<boolean>;

/** The forms queue, handing marketing forms' respondents to `handOver`. */
export function formsWork(handOver: RespondentHandOver): BackgroundWork {
  return { queues: (ctx) => formsQueues(ctx, handOver) };
}

/** The forms queues of the worker role. */
export function formsQueues(ctx: AppContext, handOver: RespondentHandOver): Record<string, QueueSpec> {
  return {
    [SUBMITTED_QUEUE]: {
      handler: (job) => handleSubmitted(ctx, job.data as SubmittedJob, handOver),
      concurrency: 4,
    },
  };
}

/** Runs the work that follows one stored submission. */
export async function handleSubmitted(
  ctx: AppContext,
  job: SubmittedJob,
  handOver: RespondentHandOver,
): Promise<void> {
  const form = await findUndeletedForm(ctx, job.form_id);
  if (!form) return;
  await notifyRecipients(ctx, form, job.submission_id);
  if (form.type === 'marketing_form' && form.subscription_list_id)
    await handOver(ctx, {
      customerId: form.customer_id,
      formId: form.id,
      submissionId: job.submission_id,
      subscriptionListId: form.subscription_list_id,
    });
}

async function notifyRecipients(ctx: AppContext, form: FormRow, submissionId: string): Promise<void> {
  const to = form.recipient
    .split(',')
    .map((s) => parseMailbox(s.trim()))
    .filter((m): m is Mailbox => m !== null);
  if (to.length === 0) return;
  const domain = (await verifiedDomainNames(ctx.database.reader, form.customer_id))[0];
  if (!domain) {
    ctx.log.warn(
      { formId: form.id },
      'form notification skipped: the account has no verified domain to send from',
    );
    return;
  }
  const link = consoleUrl(ctx, `/forms/${form.id}/responses/${submissionId}`);
  const body = brandedEmail(await brandOf(ctx, form.customer_id), {
    heading: 'New form response',
    paragraphs: [
      `A new response to the form "${form.title}" was received at ${new Date().toISOString()}.`,
      'The response is not included in this message. Read it in the Sealpost console (sign in when asked; reading responses needs the protected-content permission).',
    ],
    action: { label: 'Read the response', url: link },
  });
  await submitSystemMail(
    ctx,
    form.customer_id,
    {
      to,
      from: { address: `forms@${domain}`, name: 'Sealpost Forms' },
      subject: `New response: ${form.title.replace(/[\r\n]+/g, ' ').slice(0, 150)}`,
      html: body.html,
      text: body.text,
    },
    // A retried job (a later step failed, or the worker died after this commit) must not mail the recipients again.
    { key: `form-notification:${submissionId}`, requestHash: submissionId },
  );
}
