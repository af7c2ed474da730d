/**
 * Counting opens and clicks. A token is checked by its signature before the database is asked anything; a token that
 * is malformed, forged, or names a recipient or link that does not exist gives the same not-found answer, so tokens
 * cannot be probed. Each count and its event commit in one transaction.
 */
import { openLinkTarget } from '../mail/content.ts';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors/app-error.ts';
import { verifyToken } from '../mail/tokens.ts';
import {
  countClick,
  countMessageOpen,
  countRecipientOpen,
  findLink,
  findTrackedRecipient,
} from './tracking.repository.ts';
import { appendEvent } from '../webhooks/webhooks.outbox.ts';

const notFound = () => new AppError('not_found', 'no such tracking link');

/** The token of an open pixel path segment: `<token>.gif` or `<token>`. */
const openToken = (segment: string) =>
  segment.toLowerCase().endsWith('.gif') ? segment.slice(0, -4) : segment;

/**
 * Counts an open: the recipient's open count (and first open time), the message's total, and on the recipient's first
 * open an `opened` event. A message sent with open tracking switched off is answered but not counted.
 */
export async function recordOpen(ctx: AppContext, segment: string, now = Date.now()): Promise<void> {
  const target = verifyToken(ctx.keys.tracking, 'transactional', openToken(segment));
  if (target?.kind !== 'open') throw notFound();
  const recipient = await findTrackedRecipient(ctx.database.db, target.recipientId);
  if (!recipient) throw notFound();
  if (recipient.open_tracking !== 1) return;
  await ctx.committer.run(async (trx) => {
    const opens = await countRecipientOpen(trx, recipient.id, now);
    if (opens === undefined) return;
    await countMessageOpen(trx, recipient.message_id);
    if (opens === 1)
      await appendEvent(trx, {
        customer_id: recipient.customer_id,
        message_id: recipient.message_id,
        recipient_id: recipient.id,
        event: 'opened',
        data: JSON.stringify({ recipient: recipient.address }),
        created_at: now,
      });
  });
}

/** Counts a click on a tracked link and returns where the link goes. */
export async function recordClick(ctx: AppContext, token: string, now = Date.now()): Promise<string> {
  const target = verifyToken(ctx.keys.tracking, 'transactional', token);
  if (target?.kind !== 'click') throw notFound();
  const db = ctx.database.db;
  const recipient = await findTrackedRecipient(db, target.recipientId);
  if (!recipient) throw notFound();
  const link = await findLink(db, recipient.message_id, target.position);
  if (!link) throw notFound();
  const targetUrl = openLinkTarget(ctx.sealer, recipient.message_id, target.position, link.target_url);
  await ctx.committer.run(async (trx) => {
    await countClick(trx, recipient.message_id, link.id);
    await appendEvent(trx, {
      customer_id: recipient.customer_id,
      message_id: recipient.message_id,
      recipient_id: recipient.id,
      event: 'clicked',
      data: JSON.stringify({ recipient: recipient.address, link: target.position }),
      created_at: now,
    });
  });
  return targetUrl;
}
