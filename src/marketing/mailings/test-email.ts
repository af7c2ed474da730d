/**
 * A test email of a campaign mailing: one preview to one address through the transactional pipeline, from the
 * mailing's sender, with `[Test] ` before the subject, personalised for the subscriber with that address (or with
 * empty values when the address is not a subscriber). It is an ordinary message, not a campaign send.
 */
import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors/app-error.ts';
import { parseMailbox, type Mailbox } from '../../mail/addresses.ts';
import type { NormalizedMessage } from '../../email/message-input.ts';
import { submitMessages, type Submitter } from '../../email/submit.ts';
import { findByEmailKey } from '../subscribers/rows.service.ts';
import { requireMailing } from './mailings.service.ts';
import type { MailingRow } from './mailings.repository.ts';
import {
  EMPTY_PERSONALISATION,
  loadPersonalisation,
  personalise,
  type Personalisation,
} from './personalise.ts';

/** Sends the preview; returns nothing (the route answers 204). */
export async function sendTestEmail(
  ctx: AppContext,
  who: Submitter,
  rawId: string | number,
  toEmail: string,
): Promise<void> {
  const to = recipientOf(toEmail);
  const mailing = await requireMailing(ctx.database.reader, who.customerId, rawId);
  const from = senderOf(mailing);
  const values = await personalisationFor(ctx, who.customerId, to.address);
  try {
    await submitMessages(ctx, who, [previewOf(mailing, from, to, values)], {
      source: 'api',
      tracking: { openTracking: false, linkTracking: false },
    });
  } catch (err) {
    if (err instanceof AppError && err.code === 'email.unverified_from')
      throw new AppError(
        'marketing.sender_invalid',
        `campaign mailing ${mailing.id} cannot be sent from ${from.address}: ${err.message.replace(/^[^:]*: /, '')}`,
        { cause: err },
      );
    throw err;
  }
}

function recipientOf(toEmail: string): Mailbox {
  const box = parseMailbox(toEmail);
  if (!box || box.name || box.address !== toEmail.trim())
    throw new AppError('request.invalid', 'to_email is not a valid email address', {
      details: [{ field: 'to_email', message: 'is not a valid email address' }],
    });
  return box;
}

function senderOf(mailing: MailingRow): Mailbox {
  if (!mailing.from_email)
    throw new AppError(
      'marketing.sender_invalid',
      `campaign mailing ${mailing.id} has no from_email; set one on a verified domain of the account before sending a test email`,
    );
  return { address: mailing.from_email, name: mailing.from_name ?? '' };
}

/** The values a test email to this address is personalised with: the subscriber's, or empty for another address. */
export async function personalisationFor(
  ctx: AppContext,
  customerId: number,
  address: string,
): Promise<Personalisation> {
  const db = ctx.database.reader;
  const subscriber = await findByEmailKey(db, customerId, address.toLowerCase());
  return (subscriber && (await loadPersonalisation(db, subscriber.id))) ?? EMPTY_PERSONALISATION;
}

function previewOf(
  mailing: MailingRow,
  from: Mailbox,
  to: Mailbox,
  values: Personalisation,
): NormalizedMessage {
  const subject = personalise(mailing.subject, values, { html: false }).replace(/[\r\n]+/g, ' ');
  return {
    to: [to],
    cc: [],
    bcc: [],
    from,
    subject: `[Test] ${subject}`,
    headers: {},
    ...(mailing.html_part && { html: testCopyHtml(mailing.html_part, values) }),
    ...(mailing.text_part && { text: personalise(mailing.text_part, values, { html: false }) }),
    attachments: [],
    allowNonTLS: false,
    forceSecureNotification: false,
  };
}

/** The HTML of a test email: the mailing's HTML personalised (the block editor's preview shows exactly this). */
export function testCopyHtml(htmlPart: string, values: Personalisation): string {
  return personalise(htmlPart, values, { html: true });
}
