/**
 * Sealpost's own emails to an account's people (invitations, password resets, opt-in confirmations, form
 * notifications, export links). They go through the one submit function as the account's messages, with tracking
 * off, no attachments and no extra headers, under the same delivery rules as any transactional message.
 */
import type { AppContext } from '../context.ts';
import type { NormalizedMessage } from './message-input.ts';
import { submitMessages, type SubmitOptions } from './submit.ts';

/** What a system email carries: to whom, from which address, its subject, and its text part (and HTML part). */
export type SystemMail = Pick<NormalizedMessage, 'to' | 'from' | 'subject' | 'html' | 'text'>;

/**
 * Submits one system email of the account `customerId`. With `idempotency`, a job run again (after a crash, or when a
 * later step failed) does not mail the recipients twice.
 */
export async function submitSystemMail(
  ctx: AppContext,
  customerId: number,
  mail: SystemMail,
  idempotency?: SubmitOptions['idempotency'],
): Promise<void> {
  const message: NormalizedMessage = {
    to: mail.to,
    cc: [],
    bcc: [],
    from: mail.from,
    subject: mail.subject,
    headers: {},
    ...(mail.html === undefined ? {} : { html: mail.html }),
    text: mail.text,
    attachments: [],
    allowNonTLS: false,
    forceSecureNotification: false,
  };
  await submitMessages(ctx, { customerId, domain: null }, [message], {
    source: 'system',
    tracking: { openTracking: false, linkTracking: false },
    ...(idempotency ? { idempotency } : {}),
  });
}
