/**
 * The read side of campaigns: tracking links of sends and emails, the sends table, clicks by link, the subscribers who
 * clicked a link, and totals. Everything is read from rows and counters the campaign pipeline and tracking maintain;
 * totals are sums of per-send counters, never counts of deliveries.
 */
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/types.ts';
import { AppError } from '../../errors/app-error.ts';
import { resolveId } from '../ids.repository.ts';
import {
  fieldValuesOfMany,
  findDelivery,
  findSend,
  pageOfClickedLinks,
  countSendDeliveryLinks,
  pageOfLinkSubscribers,
  pageOfSendDeliveryLinks,
  pageOfSendLinks,
  pageOfStartedSends,
  sendCounters,
  sendLinkExists,
  storedTargets,
  type PageOf,
  type TargetRanks,
} from './analytics.repository.ts';
import { openCampaignLink, type LinkOwner } from '../deliveries/link-targets.ts';
import type {
  LINK_SUBSCRIBER_ORDER,
  SENDS_TABLE_ORDER,
  TRACKING_LINK_ORDER,
  UNIQUE_LINK_ORDER,
} from './analytics.schemas.ts';
import { parseSendsSearch } from './sends-search.ts';
import { pagedAnswer } from '../paging.ts';

/** Sorting and paging parameters as every list takes them. */
export interface ListQuery<K extends string> {
  order_by: K;
  order: 'asc' | 'desc';
  items: number;
  page: number;
}

/** A tracking link as shown (spec 2.13). */
export interface TrackingLinkView {
  id: string;
  type: 'tracking_link';
  attributes: {
    target_url: string;
    opened_at: string | null;
    clicked: number;
    campaign_mailing_delivery_id: string;
    html_id: number;
  };
}

/** A row of the sends table (spec 2.12). */
export interface SendsTableRow {
  id: number;
  uuid: string;
  marketing_email_id: number;
  campaign_mailing_id: number;
  campaign_mailing_created_at: string;
  sent_at: string;
  subscription_list_name: string;
}

/** A subscriber who clicked a link. */
export interface LinkSubscriberView {
  id: string;
  type: 'subscriber';
  attributes: {
    email: string;
    unsubscribed: boolean;
    first_name: string | null;
    last_name: string | null;
    custom_fields: { subscriber_custom_field_type_id: string; value: string }[];
  };
}

/** A timestamp in milliseconds as ISO 8601 UTC; null stays null. */
export const iso = (ms: number | null): string | null =>
  ms === null ? null : new Date(Number(ms)).toISOString();

/** The limit, offset and order of a list query. */
export function pageOf<K extends string>(q: ListQuery<K>): PageOf<K> {
  return { orderBy: q.order_by, direction: q.order, limit: q.items, offset: (q.page - 1) * q.items };
}

/** A query value, or undefined when absent or blank (clients send empty parameters for absent ones). */
export const given = (raw: string | undefined): string | undefined =>
  raw === undefined || raw.trim() === '' ? undefined : raw;

/** A 400 naming a missing parameter. */
export function missing(field: string, message: string): AppError {
  return new AppError('request.invalid', `${field} ${message}`, { details: [{ field, message }] });
}

/** A send of the account by an id as sent; otherwise not found. */
export async function requireSend(db: Queryable, customerId: number, raw: string) {
  const id = await resolveId(db, 'campaign_mailing_sends', customerId, raw);
  const row = id === null ? undefined : await findSend(db, customerId, id);
  if (!row) throw new AppError('marketing.send_not_found', `campaign mailing send ${raw} was not found`);
  return { id: Number(row.id), mailingId: Number(row.campaign_mailing_id) };
}

/** A delivery of the account (and of `sendId`, when given) by an id as sent; otherwise not found. */
export async function requireDelivery(db: Queryable, customerId: number, raw: string, sendId?: number) {
  const id = await resolveId(db, 'marketing_deliveries', customerId, raw);
  const row = id === null ? undefined : await findDelivery(db, customerId, id);
  if (!row || (sendId !== undefined && Number(row.send_id) !== sendId))
    throw new AppError(
      'marketing.delivery_not_found',
      `campaign mailing delivery ${raw} was not found${sendId === undefined ? '' : ' in this send'}`,
    );
  return { id: Number(row.id), sendId: row.send_id === null ? null : Number(row.send_id) };
}

/**
 * `GET /tracking_links`: every link of every email of a send (or of one email of it) with its tracking data, clicked
 * or not, computed from deliveries and link positions; for an email outside a send (a drip step), its clicked links.
 * A tracking link's id is `<delivery id>-<html_id>` (the delivery's UUID).
 */
export async function trackingLinksOf(
  ctx: AppContext,
  customerId: number,
  q: ListQuery<(typeof TRACKING_LINK_ORDER)[number]> & {
    campaign_mailing_send_id?: string;
    campaign_mailing_delivery_id?: string;
  },
) {
  const db = ctx.database.reader;
  const sendRaw = given(q.campaign_mailing_send_id);
  const deliveryRaw = given(q.campaign_mailing_delivery_id);
  if (sendRaw === undefined && deliveryRaw === undefined)
    throw missing('campaign_mailing_send_id', 'is required (or campaign_mailing_delivery_id for one email)');
  const send = sendRaw === undefined ? undefined : await requireSend(db, customerId, sendRaw);
  const delivery =
    deliveryRaw === undefined ? undefined : await requireDelivery(db, customerId, deliveryRaw, send?.id);
  const sendId = send?.id ?? delivery?.sendId ?? null;
  const page = { page: q.page, items: q.items, limit: q.items, offset: (q.page - 1) * q.items };
  if (sendId === null) {
    const owner = { deliveryId: delivery!.id };
    const targets = await openTargets(ctx, db, owner);
    const rows = await pageOfClickedLinks(db, owner, pageOf(q), ranksOf(targets, q.order_by));
    const links = rows.map((r) =>
      linkView(r.delivery_uuid, Number(r.html_id), targets, r.first_opened_at, Number(r.clicked)),
    );
    return { data: links };
  }
  const targets = await openTargets(ctx, db, { sendId });
  const [rows, total] = await Promise.all([
    pageOfSendDeliveryLinks(db, sendId, delivery?.id ?? null, pageOf(q), ranksOf(targets, q.order_by)),
    countSendDeliveryLinks(db, sendId, delivery?.id ?? null),
  ]);
  const links = rows.map((r) =>
    linkView(r.delivery_uuid, Number(r.html_id), targets, r.first_opened_at, Number(r.clicked)),
  );
  return pagedAnswer(links, page, total);
}

/** The opened targets of a send's links, or of a delivery's clicked links, by html_id. */
async function openTargets(ctx: AppContext, db: Queryable, owner: LinkOwner): Promise<Map<number, string>> {
  const rows = await storedTargets(db, owner);
  return new Map(
    rows.map((r) => [
      Number(r.html_id),
      openCampaignLink(ctx.sealer, owner, Number(r.html_id), r.target_url),
    ]),
  );
}

/** The rank of each link by its target, for a sort by target (none for other sorts). */
function ranksOf(targets: Map<number, string>, orderBy: string): TargetRanks {
  if (orderBy !== 'target_url') return new Map();
  const sorted = [...targets].sort(([ha, a], [hb, b]) => (a < b ? -1 : a > b ? 1 : ha - hb));
  return new Map(sorted.map(([htmlId], rank) => [htmlId, rank]));
}

function linkView(
  deliveryId: string,
  htmlId: number,
  targets: Map<number, string>,
  openedAt: number | null,
  clicked: number,
): TrackingLinkView {
  return {
    id: `${deliveryId}-${htmlId}`,
    type: 'tracking_link',
    attributes: {
      target_url: targets.get(htmlId) ?? '',
      opened_at: iso(openedAt),
      clicked,
      campaign_mailing_delivery_id: deliveryId,
      html_id: htmlId,
    },
  };
}

/** `GET /analytics/campaign_mailing_sends_table`: the account's sends that have started, filtered by `search`. */
export async function sendsTableOf(
  ctx: AppContext,
  customerId: number,
  q: ListQuery<(typeof SENDS_TABLE_ORDER)[number]> & { search?: string },
): Promise<SendsTableRow[]> {
  const filter = parseSendsSearch(q.search);
  const rows = await pageOfStartedSends(ctx.database.reader, customerId, filter, pageOf(q));
  return rows.map((r) => ({
    id: Number(r.id),
    uuid: r.uuid,
    marketing_email_id: Number(r.campaign_mailing_id),
    campaign_mailing_id: Number(r.campaign_mailing_id),
    campaign_mailing_created_at: iso(r.mailing_created_at)!,
    sent_at: iso(r.sent_at)!,
    subscription_list_name: r.subscription_list_name,
  }));
}

/** `GET /analytics/tracking_links_by_unique_link`: the links of a send with their click totals. */
export async function uniqueLinksOf(
  ctx: AppContext,
  customerId: number,
  q: ListQuery<(typeof UNIQUE_LINK_ORDER)[number]> & { campaign_mailing_send_id: string },
): Promise<{ html_id: number; target_url: string; clicked: number }[]> {
  const db = ctx.database.reader;
  const send = await requireSend(db, customerId, q.campaign_mailing_send_id);
  const targets = await openTargets(ctx, db, { sendId: send.id });
  const rows = await pageOfSendLinks(db, send.id, pageOf(q), ranksOf(targets, q.order_by));
  return rows.map((r) => ({
    html_id: Number(r.html_id),
    target_url: targets.get(Number(r.html_id)) ?? '',
    clicked: Number(r.clicked),
  }));
}

/**
 * `GET /analytics/subscribers_by_tracking_link`: the subscribers whose email of a send had one link clicked
 * (`html_id`), or any link (`tracking_link_id` 0, as the MCP client sends when it names no link).
 */
export async function linkSubscribersOf(
  ctx: AppContext,
  customerId: number,
  q: ListQuery<(typeof LINK_SUBSCRIBER_ORDER)[number]> & {
    campaign_mailing_send_id: string;
    html_id?: number;
    tracking_link_id?: number;
  },
): Promise<LinkSubscriberView[]> {
  const db = ctx.database.reader;
  const htmlId = q.html_id ?? null;
  if (htmlId === null && q.tracking_link_id !== 0)
    throw new AppError('request.invalid', 'html_id is required (or tracking_link_id 0 for every link)', {
      details: [{ field: 'html_id', message: 'is required' }],
    });
  const send = await requireSend(db, customerId, q.campaign_mailing_send_id);
  if (htmlId !== null && !(await sendLinkExists(db, send.id, htmlId)))
    throw new AppError(
      'marketing.tracking_link_not_found',
      `send ${q.campaign_mailing_send_id} has no link with html_id ${htmlId}`,
    );
  const rows = await pageOfLinkSubscribers(db, customerId, send.id, htmlId, pageOf(q));
  const fields = new Map<number, { subscriber_custom_field_type_id: string; value: string }[]>();
  for (const f of await fieldValuesOfMany(
    db,
    rows.map((r) => Number(r.id)),
  )) {
    const list = fields.get(Number(f.subscriber_id)) ?? [];
    list.push({ subscriber_custom_field_type_id: f.uuid, value: f.value });
    fields.set(Number(f.subscriber_id), list);
  }
  return rows.map((r) => ({
    id: r.uuid,
    type: 'subscriber',
    attributes: {
      email: r.email,
      unsubscribed: Number(r.unsubscribed) === 1,
      first_name: r.first_name,
      last_name: r.last_name,
      custom_fields: fields.get(Number(r.id)) ?? [],
    },
  }));
}

/** `GET /analytics/campaign_mailing_send_totals`: one send's counters, or the sums over every send of the account. */
export async function sendTotalsOf(ctx: AppContext, customerId: number, sendRaw: string | undefined) {
  const db = ctx.database.reader;
  const raw = given(sendRaw);
  const send = raw === undefined ? null : await requireSend(db, customerId, raw);
  return sendCounters(db, customerId, send?.id ?? null);
}
