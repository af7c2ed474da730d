/**
 * Sealpost's own mail to console users (invitations, password resets) in the account's brand, sent through the
 * normal transactional pipeline from `no-reply@<the account's first verified domain>` as "Sealpost", with tracking off. An account with no
 * verified domain cannot send: the caller shows the link instead (an invitation) or logs it (a reset, whose page says
 * the same thing either way).
 */
import { consoleUrl, type AppContext } from '../context.ts';
import { listVerifiedDomains } from '../accounts/domains.repository.ts';
import { submitSystemMail } from '../email/system-mail.ts';
import { brandOf } from '../accounts/brand.service.ts';
import { brandedEmail, type SystemEmail } from '../mail/branded-email.ts';
import type { User } from './users.service.ts';

/** The URL of a set-password link. */
export function setPasswordUrl(ctx: AppContext, token: string): string {
  return consoleUrl(ctx, `/set-password?token=${token}`);
}

/** What each kind of link mail says, for the account `account`. */
const TEXTS = {
  invite: {
    subject: 'You are invited to Sealpost',
    email: (account: string, url: string): SystemEmail => ({
      heading: 'You are invited',
      paragraphs: [`You have been invited to the Sealpost console of ${account}.`],
      action: { label: 'Choose your password', url },
      after: ['The link works once, within 72 hours.', 'If you did not expect this, ignore this message.'],
    }),
  },
  reset: {
    subject: 'Reset your Sealpost password',
    email: (account: string, url: string): SystemEmail => ({
      heading: 'Reset your password',
      paragraphs: [`Someone asked to reset the password of your Sealpost console user (${account}).`],
      action: { label: 'Choose a new password', url },
      after: [
        'The link works once, within 72 hours.',
        'If it was not you, ignore this message; your password stays as it is.',
      ],
    }),
  },
} as const;

/** Mails a one-time link to the user; false when the account has no verified domain to send from. */
export async function mailUserLink(
  ctx: AppContext,
  user: User,
  accountName: string,
  purpose: 'invite' | 'reset',
  token: string,
): Promise<boolean> {
  const domain = (await listVerifiedDomains(ctx.database.db, user.customerId))[0];
  if (!domain) {
    ctx.log.warn(
      { userId: user.id, purpose },
      'console mail not sent: the account has no verified domain to send from',
    );
    return false;
  }
  const text = TEXTS[purpose];
  const brand = await brandOf(ctx, user.customerId);
  const body = brandedEmail(brand, text.email(accountName, setPasswordUrl(ctx, token)));
  await submitSystemMail(ctx, user.customerId, {
    to: [{ address: user.email, name: '' }],
    from: { address: `no-reply@${domain.name}`, name: 'Sealpost' },
    subject: text.subject,
    html: body.html,
    text: body.text,
  });
  return true;
}
