/**
 * Sealpost's own mail to console users (invitations, password resets), sent through the normal transactional
 * pipeline from `no-reply@<the account's first verified domain>` as "Sealpost", with tracking off. An account with no
 * verified domain cannot send: the caller shows the link instead (an invitation) or logs it (a reset, whose page says
 * the same thing either way).
 */
import { consoleUrl, type AppContext } from '../context.ts';
import { listVerifiedDomains } from '../accounts/domains.repository.ts';
import { submitMessages } from '../email/submit.ts';
import type { User } from './users.service.ts';

/** The URL of a set-password link. */
export function setPasswordUrl(ctx: AppContext, token: string): string {
  return consoleUrl(ctx, `/set-password?token=${token}`);
}

const TEXTS = {
  invite: {
    subject: 'You are invited to Sealpost',
    body: (account: string, url: string) =>
      `You have been invited to the Sealpost console of ${account}.\n\nChoose your password here (the link works once, within 72 hours):\n${url}\n\nIf you did not expect this, ignore this message.\n`,
  },
  reset: {
    subject: 'Reset your Sealpost password',
    body: (account: string, url: string) =>
      `Someone asked to reset the password of your Sealpost console user (${account}).\n\nChoose a new password here (the link works once, within 72 hours):\n${url}\n\nIf it was not you, ignore this message; your password stays as it is.\n`,
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
  await submitMessages(
    ctx,
    { customerId: user.customerId, domain: null },
    [
      {
        to: [{ address: user.email, name: '' }],
        cc: [],
        bcc: [],
        from: { address: `no-reply@${domain.name}`, name: 'Sealpost' },
        subject: text.subject,
        headers: {},
        text: text.body(accountName, setPasswordUrl(ctx, token)),
        attachments: [],
        allowNonTLS: false,
        forceSecureNotification: false,
      },
    ],
    { source: 'system', tracking: { openTracking: false, linkTracking: false } },
  );
  return true;
}
