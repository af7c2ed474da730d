/**
 * A mailing previewed as one subscriber would receive it: the same rendering as a campaign email (personalisation,
 * footer, the account's postal address), with links that lead nowhere (the preview is no delivery).
 */
import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors/app-error.ts';
import { postalAddressOf } from '../../accounts/settings.service.ts';
import { requireMailing } from '../mailings/mailings.service.ts';
import { loadPersonalisation } from '../mailings/personalise.ts';
import { findByEmailKey } from '../subscribers/rows.service.ts';
import { renderEmail, templateOfSource } from '../deliveries/content.ts';

/** What the preview shows. */
export interface MailingPreview {
  email: string;
  subject: string;
  html: string | null;
  text: string | null;
}

/** Renders a mailing for the account's subscriber with this email; an unknown address is not found. */
export async function previewMailing(
  ctx: AppContext,
  customerId: number,
  rawMailingId: string | number,
  email: string,
): Promise<MailingPreview> {
  const db = ctx.database.reader;
  const mailing = await requireMailing(db, customerId, rawMailingId);
  const subscriber = await findByEmailKey(db, customerId, email.trim().toLowerCase());
  const values = subscriber && (await loadPersonalisation(db, subscriber.id));
  if (!subscriber || !values)
    throw new AppError('marketing.subscriber_not_found', `no subscriber has the email ${email.trim()}`);
  const template = templateOfSource({
    kind: 'mailing',
    ...mailing,
    postal_address: await postalAddressOf(ctx, customerId),
  });
  const out = renderEmail(
    template,
    // Delivery 0 never exists: the preview's links, if followed, are not found and count nothing.
    { id: 0, email: subscriber.email },
    values,
    { publicUrl: ctx.publicUrl, key: ctx.keys.tracking },
  );
  return { email: subscriber.email, subject: out.subject, html: out.html ?? null, text: out.text ?? null };
}
