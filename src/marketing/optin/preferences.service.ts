/**
 * The public preference page of a subscriber, reached from every campaign email by a signed link (no sign-in): the
 * account's public lists and the lists the subscriber is on, each to join or leave, and leaving everything at once.
 * Joining a list here needs no confirmation email (the link came to the address), and clears a global opt-out.
 */
import { brandOf, type Brand } from '../../accounts/brand.service.ts';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors/app-error.ts';
import { findDeliveryRow, findTemplateSource } from '../deliveries/deliveries.service.ts';
import { verifyToken } from '../../mail/tokens.ts';
import type { SendContent } from '../deliveries/content.ts';
import { bumpSubscriberCount } from '../lists/lists.service.ts';
import { addMembers, setMemberUnsubscribed, unsubscribeEverywhere } from '../subscribers/rows.service.ts';
import { setGlobalOptOut } from '../subscriptions/subscriptions.service.ts';
import { confirmMember, preferenceLists, subscriberOfDelivery } from './optin.repository.ts';
import { refText } from '../ids.repository.ts';

/** One list on the page. */
export interface PreferenceList {
  id: string;
  name: string;
  subscribed: boolean;
}

/** What the preference page shows. */
export interface Preferences {
  email: string;
  customerName: string | null;
  globallyUnsubscribed: boolean;
  lists: PreferenceList[];
  /** The value the page's forms must post back (binds a post to this link). */
  formKey: string;
  /** The account's brand. */
  brand: Brand;
}

const notFound = () => new AppError('not_found', 'no such preference link');

async function subscriberOf(ctx: AppContext, token: string) {
  const target = verifyToken(ctx.keys.tracking, 'marketing', token);
  if (target?.kind !== 'preferences') throw notFound();
  const db = ctx.database.db;
  const d = await findDeliveryRow(db, target.deliveryId);
  if (!d || d.subscriber_id === null) throw notFound();
  const s = await subscriberOfDelivery(db, d.subscriber_id);
  if (!s) throw notFound();
  const source = await findTemplateSource(db, d);
  const customerName =
    source?.kind === 'send' ? (JSON.parse(source.content) as SendContent).customerName : null;
  return { s, customerName };
}

/** The key a form of the page carries: an HMAC of the link's token, so a post from elsewhere is refused. */
const formKeyOf = (ctx: AppContext, token: string) =>
  createHmac('sha256', ctx.keys.tracking).update(`preferences-form:${token}`).digest('base64url');

/** Whether a posted form key belongs to the link. */
export function formKeyMatches(ctx: AppContext, token: string, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(formKeyOf(ctx, token));
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Reads the preference page of a link; changes nothing. */
export async function preferencesOf(ctx: AppContext, token: string): Promise<Preferences> {
  const { s, customerName } = await subscriberOf(ctx, token);
  const rows = await preferenceLists(ctx.database.db, Number(s.customer_id), Number(s.id));
  return {
    email: s.email,
    customerName,
    brand: await brandOf(ctx, Number(s.customer_id)),
    globallyUnsubscribed: s.unsubscribed === 1,
    lists: rows.map((r) => ({
      id: String(r.id),
      name: r.name,
      subscribed: r.member !== null && r.unsubscribed === 0,
    })),
    formKey: formKeyOf(ctx, token),
  };
}

/**
 * Saves the page: `subscribed` names the lists (of those the page shows) the subscriber wants; the others it leaves.
 * With `everything`, it unsubscribes from everything the account sends instead.
 */
export async function savePreferences(
  ctx: AppContext,
  token: string,
  change: { subscribed: string[]; everything: boolean },
  now = Date.now(),
): Promise<Preferences> {
  const { s } = await subscriberOf(ctx, token);
  const customerId = Number(s.customer_id);
  const subscriberId = Number(s.id);
  // Lists are named by their UUIDs (a page rendered before the UUIDs were shown names them by integer).
  const wanted = new Set(change.subscribed.map((raw) => refText(raw)));
  const isWanted = (r: { id: number | bigint; uuid: string }) =>
    wanted.has(r.uuid) || wanted.has(String(r.id));
  await ctx.database.db.transaction().execute(async (trx) => {
    if (change.everything) {
      await unsubscribeEverywhere(trx, subscriberId, now);
      return;
    }
    const rows = await preferenceLists(trx, customerId, subscriberId);
    let joined = false;
    for (const r of rows) {
      const id = Number(r.id);
      const member = r.member !== null;
      // Globally unsubscribed, no list counts as on: ticking one subscribes again.
      const on = member && r.unsubscribed === 0 && s.unsubscribed === 0;
      if (isWanted(r) && !on) {
        if (!member) {
          await bumpSubscriberCount(trx, id, await addMembers(trx, id, [subscriberId], now), now);
          await confirmMember(trx, id, subscriberId, now);
        } else await setMemberUnsubscribed(trx, id, subscriberId, false, now);
        joined = true;
      } else if (!isWanted(r) && on) await setMemberUnsubscribed(trx, id, subscriberId, true, now);
    }
    if (joined && s.unsubscribed === 1) await setGlobalOptOut(trx, customerId, [subscriberId], false, now);
  });
  return preferencesOf(ctx, token);
}
