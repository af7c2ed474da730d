/** Message receipts (spec 2.6): per-recipient delivery and open status, opens, clicks per link, read from maintained counters. */
import type { AppContext } from '../context.ts';
import { AppError } from '../errors/app-error.ts';
import { findMessage, listLinks, listRecipients } from './messages.repository.ts';
import { rfc2822 } from '../mail/dates.ts';
import { openLinkTarget } from '../mail/content.ts';
import type { Receipt } from './email.schemas.ts';
import { SUPPRESSED_STATUS } from '../accounts/suppression.ts';

/** The receipt of a message of this account; another account's message, or an unknown id, is 404 naming the id asked for. */
export async function getReceipt(
  ctx: AppContext,
  customerId: number,
  sourceTrackingId: string,
): Promise<Receipt> {
  const db = ctx.database.db;
  const message = await findMessage(db, customerId, sourceTrackingId);
  if (!message)
    throw new AppError('email.message_not_found', 'Message with this tracking id was not found', {
      extra: { sourceTrackingId },
    });
  const [recipients, links] = await Promise.all([listRecipients(db, message.id), listLinks(db, message.id)]);
  return {
    sourceTrackingId: message.id,
    data: {
      message: {
        id: message.header_message_id,
        message_deliveries: recipients.map((r) => ({
          recipient: r.address,
          status: {
            deliveryStatus: r.delivery_status,
            deliveryTime: rfc2822(r.delivered_at),
            openedStatus: r.open_count > 0 ? 'opened' : 'not opened',
            openedTime: rfc2822(r.first_opened_at),
            ...(r.delivery_status === SUPPRESSED_STATUS && { reason: r.last_response ?? '' }),
          },
        })),
        total_opens: message.total_opens,
        distinct_opens: recipients.filter((r) => r.open_count > 0).length,
        total_click_count: message.total_clicks,
        clicks_per_link: links
          .filter((l) => l.click_count > 0)
          .map((l) => ({
            click_count: l.click_count,
            target_url: openLinkTarget(ctx.sealer, message.id, l.position, l.target_url),
          })),
        unsubscribed: message.unsubscribed === 1,
      },
    },
  };
}
