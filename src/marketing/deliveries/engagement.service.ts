/**
 * What recipients of marketing mail do: opens (the pixel), clicks (tracked links) and unsubscribes (the link in the
 * body, or a mail client's RFC 8058 one-click POST). Tokens are checked by signature before the database is asked;
 * a bad token and a token of a delivery that no longer exists get the same not-found answer. Each event and its
 * counters (delivery, send, mailing, subscriber) commit in one transaction. The first click of an email that was never
 * counted as opened (images blocked) counts as its open too.
 */
import type { AppContext } from '../../context.ts';
import type { UnsubscribeInfo } from '../../delivery/kind.ts';
import type { Queryable } from '../../db/types.ts';
import { AppError } from '../../errors/app-error.ts';
import { linkTarget, templateOfSource, type SendContent } from './content.ts';
import { findListName } from '../lists/lists.service.ts';
import {
  findMembershipState,
  findSubscriberState,
  unsubscribeEverywhere,
  unsubscribeFromList,
} from '../subscribers/rows.service.ts';
import {
  bumpSubscriber,
  countDeliveryClick,
  countDeliveryOpen,
  findDeliveryRow,
  findTemplateSource,
  listOfDelivery,
  markDeliveryUnsubscribed,
  type DeliveryRow,
} from './deliveries.repository.ts';
import { bumpCampaign } from './send-progress.repository.ts';
import { sealCampaignLink } from './link-targets.ts';
import { verifyToken, type TokenTarget } from '../../mail/tokens.ts';
import { brandOf, type Brand } from '../../accounts/brand.service.ts';
import { loadMarketingItem } from './delivery.ts';

const notFound = () => new AppError('not_found', 'no such tracking link');

async function deliveryOf(
  ctx: AppContext,
  token: string,
  kind: TokenTarget<'marketing'>['kind'],
): Promise<{ d: DeliveryRow; target: TokenTarget<'marketing'> }> {
  const target = verifyToken(ctx.keys.tracking, 'marketing', token);
  if (target?.kind !== kind) throw notFound();
  const d = await findDeliveryRow(ctx.database.db, target.deliveryId);
  if (!d || d.subscriber_id === null) throw notFound();
  return { d, target };
}

/** Counts the first open of a delivery as a view of its send and mailing, and as the subscriber's open. */
async function countOpen(trx: Queryable, d: DeliveryRow, now: number): Promise<void> {
  const opens = await countDeliveryOpen(trx, d.id, now);
  if (opens !== 1) return;
  if (d.campaign_mailing_id !== null)
    await bumpCampaign(trx, d.send_id, d.campaign_mailing_id, { viewed_count: 1 }, now);
  await bumpSubscriber(trx, d.subscriber_id!, ['stat_opened']);
}

/** Counts an open of a marketing email (`/t/m/o/<token>.gif`). */
export async function recordMarketingOpen(ctx: AppContext, segment: string, now = Date.now()): Promise<void> {
  const token = segment.toLowerCase().endsWith('.gif') ? segment.slice(0, -4) : segment;
  const { d } = await deliveryOf(ctx, token, 'open');
  await ctx.committer.run((trx) => countOpen(trx, d, now));
}

/** Counts a click of a tracked link (`/t/m/c/<token>`) and returns where it goes. */
export async function recordMarketingClick(
  ctx: AppContext,
  token: string,
  now = Date.now(),
): Promise<string> {
  const { d, target } = await deliveryOf(ctx, token, 'click');
  if (target.kind !== 'click') throw notFound();
  const source = await findTemplateSource(ctx.database.db, d);
  const url = source && linkTarget(templateOfSource(source), target.position);
  if (!url) throw notFound();
  await ctx.committer.run(async (trx) => {
    const sealed = sealCampaignLink(ctx.sealer, { deliveryId: d.id }, target.position, url);
    const clicks = await countDeliveryClick(trx, d, target.position, sealed, now);
    if (clicks !== 1) return;
    if (d.first_opened_at === null) await countOpen(trx, d, now);
    if (d.campaign_mailing_id !== null)
      await bumpCampaign(trx, d.send_id, d.campaign_mailing_id, { clicked_count: 1 }, now);
    await bumpSubscriber(trx, d.subscriber_id!, ['stat_clicked']);
  });
  return url;
}

/** What a view-in-browser link shows: the email as its recipient got it, under the account's brand. */
export async function browserCopy(
  ctx: AppContext,
  token: string,
): Promise<{ subject: string; html?: string; text?: string; brand: Brand }> {
  const { d } = await deliveryOf(ctx, token, 'view');
  const content = (await loadMarketingItem(ctx, d.id))?.content;
  if (!content) throw notFound();
  return {
    subject: content.subject,
    ...(content.html !== undefined && { html: content.html }),
    ...(content.text !== undefined && { text: content.text }),
    brand: await brandOf(ctx, Number(d.customer_id)),
  };
}

/** Reads what the confirm page of an unsubscribe link shows; changes nothing. */
export async function unsubscribeInfo(ctx: AppContext, token: string): Promise<UnsubscribeInfo> {
  const { d } = await deliveryOf(ctx, token, 'unsubscribe');
  const db = ctx.database.db;
  const source = await findTemplateSource(db, d);
  const listId = await listOfDelivery(db, d);
  const list = listId === null ? undefined : await findListName(db, listId);
  const subscriber = await findSubscriberState(db, d.subscriber_id!);
  const member = listId === null ? undefined : await findMembershipState(db, listId, d.subscriber_id!);
  return {
    email: d.email,
    listName: list?.name ?? (source?.kind === 'send' ? source.subscription_list_name : null),
    customerName: source?.kind === 'send' ? (JSON.parse(source.content) as SendContent).customerName : null,
    unsubscribed: member?.unsubscribed === 1,
    globallyUnsubscribed: subscriber?.unsubscribed === 1,
    brand: await brandOf(ctx, Number(d.customer_id)),
  };
}

/**
 * Unsubscribes the recipient of a delivery: from the list the email went to (the send's or the drip's), or from
 * everything the account sends when `global` (also when that list no longer exists). Repeating it changes nothing more.
 */
export async function unsubscribeByToken(
  ctx: AppContext,
  token: string,
  global: boolean,
  now = Date.now(),
): Promise<UnsubscribeInfo> {
  const { d } = await deliveryOf(ctx, token, 'unsubscribe');
  const listId = await listOfDelivery(ctx.database.db, d);
  const everything = global || listId === null;
  const subscriberId = d.subscriber_id!;
  await ctx.database.db.transaction().execute(async (trx) => {
    if (everything) {
      if (!(await unsubscribeEverywhere(trx, subscriberId, now))) return;
    } else {
      if (!(await unsubscribeFromList(trx, listId!, subscriberId, now))) return;
    }
    if (!(await markDeliveryUnsubscribed(trx, d.id, everything, now))) return;
    if (d.campaign_mailing_id !== null)
      await bumpCampaign(
        trx,
        d.send_id,
        d.campaign_mailing_id,
        everything ? { global_unsubscribed_count: 1 } : { unsubscribed_count: 1 },
        now,
      );
    await bumpSubscriber(trx, subscriberId, [everything ? 'stat_global_unsubscribed' : 'stat_unsubscribed']);
  });
  return unsubscribeInfo(ctx, token);
}
