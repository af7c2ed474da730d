/**
 * SQL for the read side of campaigns: sends and deliveries of an account, the clicked links of deliveries, the links of a
 * send, the subscribers who clicked one, and the counters the pipeline keeps. Nothing here writes.
 */
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import type { Queryable } from '../../db/types.ts';
import { containsText } from '../../db/like.ts';
import type { IdRef } from '../ids.ts';
import type {
  DELIVERIES_TABLE_ORDER,
  LINK_SUBSCRIBER_ORDER,
  SENDS_TABLE_ORDER,
  TRACKING_LINK_ORDER,
  UNIQUE_LINK_ORDER,
} from './analytics.schemas.ts';

/** A page of a sorted list. */
export interface PageOf<K extends string> {
  orderBy: K;
  direction: 'asc' | 'desc';
  limit: number;
  offset: number;
}

/** Counter columns of a send, in the order of the totals. */
export const TOTAL_COLUMNS = {
  delivered: 'delivered_count',
  viewed: 'viewed_count',
  clicked: 'clicked_count',
  bounced: 'bounced_count',
  soft_bounced: 'soft_bounced_count',
  hard_bounced: 'hard_bounced_count',
  unsubscribed: 'unsubscribed_count',
  global_unsubscribed: 'global_unsubscribed_count',
} as const;

/**
 * A condition on the sends table: a text column containing a value (letter case ignored), the subject or the list name
 * containing it, or an id column equal to one.
 */
export type SendsFilter =
  | { kind: 'contains'; column: 'subscription_list_name' | 'subject'; value: string }
  | { kind: 'anywhere'; value: string }
  | { kind: 'equals'; column: 'id' | 'campaign_mailing_id'; value: IdRef };

/** A send of an account. */
export async function findSend(db: Queryable, customerId: number, id: number) {
  return db
    .selectFrom('campaign_mailing_sends')
    .select(['id', 'campaign_mailing_id'])
    .where('id', '=', id)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
}

/** A delivery (campaign or drip email) of an account. */
export async function findDelivery(db: Queryable, customerId: number, id: number) {
  return db
    .selectFrom('marketing_deliveries')
    .select(['id', 'send_id'])
    .where('id', '=', id)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
}

/** A mailing of an account. */
export async function findMailing(db: Queryable, customerId: number, id: number) {
  return db
    .selectFrom('campaign_mailings')
    .select('id')
    .where('id', '=', id)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
}

/**
 * The order of a send's (or a delivery's) link targets by their opened text, as html_id to rank: targets are stored
 * sealed, so SQL cannot compare them, and a sort by target sorts by this rank.
 */
export type TargetRanks = ReadonlyMap<number, number>;

function byTarget(column: string, ranks: TargetRanks): RawBuilder<number> {
  if (ranks.size === 0) return sql<number>`0`;
  const cases = [...ranks].map(([htmlId, rank]) => sql`when ${sql.lit(htmlId)} then ${sql.lit(rank)}`);
  return sql<number>`case ${sql.ref(column)} ${sql.join(cases, sql` `)} else ${sql.lit(ranks.size)} end`;
}

/** The stored (sealed) targets of a send's links, or of a delivery's clicked links. */
export async function storedTargets(db: Queryable, by: { sendId: number } | { deliveryId: number }) {
  return 'sendId' in by
    ? db
        .selectFrom('campaign_send_links')
        .select(['html_id', 'target_url'])
        .where('send_id', '=', by.sendId)
        .execute()
    : db
        .selectFrom('marketing_link_clicks')
        .select(['html_id', 'target_url'])
        .where('delivery_id', '=', by.deliveryId)
        .execute();
}

const CLICK_SORT = {
  created_at: 'c.created_at',
  clicked: 'c.clicked',
  html_id: 'c.html_id',
  opened_at: sql<number>`coalesce(d.first_opened_at, 0)`,
} as const;

/** A page of the clicked links of one send's deliveries, or of one delivery, with each delivery's first open. */
export async function pageOfClickedLinks(
  db: Queryable,
  by: { sendId: number } | { deliveryId: number },
  p: PageOf<(typeof TRACKING_LINK_ORDER)[number]>,
  ranks: TargetRanks,
) {
  let q = db
    .selectFrom('marketing_link_clicks as c')
    .innerJoin('marketing_deliveries as d', 'd.id', 'c.delivery_id')
    .select([
      'c.id',
      'c.delivery_id',
      'd.uuid as delivery_uuid',
      'c.html_id',
      'c.target_url',
      'c.clicked',
      'd.first_opened_at',
    ]);
  q = 'sendId' in by ? q.where('c.send_id', '=', by.sendId) : q.where('c.delivery_id', '=', by.deliveryId);
  return q
    .orderBy(p.orderBy === 'target_url' ? byTarget('c.html_id', ranks) : CLICK_SORT[p.orderBy], p.direction)
    .orderBy('c.id', p.direction)
    .limit(p.limit)
    .offset(p.offset)
    .execute();
}

const LINK_SORT = {
  created_at: sql<number>`d.created_at`,
  clicked: sql<number>`coalesce(c.clicked, 0)`,
  html_id: sql<number>`l.html_id`,
  opened_at: sql<number>`coalesce(d.first_opened_at, 0)`,
} as const;

/**
 * A page of every link of every email of a send (or of one email of it), computed from the send's deliveries and its
 * link positions with each one's clicks, whether clicked or not: nothing is stored per email and link until a click.
 */
export async function pageOfSendDeliveryLinks(
  db: Queryable,
  sendId: number,
  deliveryId: number | null,
  p: PageOf<(typeof TRACKING_LINK_ORDER)[number]>,
  ranks: TargetRanks,
) {
  let q = db
    .selectFrom('marketing_deliveries as d')
    .innerJoin('campaign_send_links as l', 'l.send_id', 'd.send_id')
    .leftJoin('marketing_link_clicks as c', (j) =>
      j.onRef('c.delivery_id', '=', 'd.id').onRef('c.html_id', '=', 'l.html_id'),
    )
    .select([
      'd.id as delivery_id',
      'd.uuid as delivery_uuid',
      'l.html_id',
      'l.target_url',
      'd.first_opened_at',
      sql<number>`coalesce(c.clicked, 0)`.as('clicked'),
    ])
    .where('d.send_id', '=', sendId);
  if (deliveryId !== null) q = q.where('d.id', '=', deliveryId);
  return q
    .orderBy(p.orderBy === 'target_url' ? byTarget('l.html_id', ranks) : LINK_SORT[p.orderBy], p.direction)
    .orderBy('d.id', p.direction)
    .orderBy('l.html_id', p.direction)
    .limit(p.limit)
    .offset(p.offset)
    .execute();
}

/** How many links a send's emails (or one of them) hold: emails times link positions. */
export async function countSendDeliveryLinks(
  db: Queryable,
  sendId: number,
  deliveryId: number | null,
): Promise<number> {
  let dq = db
    .selectFrom('marketing_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('send_id', '=', sendId);
  if (deliveryId !== null) dq = dq.where('id', '=', deliveryId);
  const [d, l] = await Promise.all([
    dq.executeTakeFirstOrThrow(),
    db
      .selectFrom('campaign_send_links')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('send_id', '=', sendId)
      .executeTakeFirstOrThrow(),
  ]);
  return Number(d.n) * Number(l.n);
}

const SENDS_SORT = {
  created_at: 's.created_at',
  sent_at: 's.sent_at',
  campaign_mailing_created_at: 'm.created_at',
  subscription_list_name: 's.subscription_list_name',
  subject: 'm.subject',
} as const;

/** A page of the account's sends that have started sending, with their mailing's creation time. */
export async function pageOfStartedSends(
  db: Queryable,
  customerId: number,
  filter: SendsFilter | null,
  p: PageOf<(typeof SENDS_TABLE_ORDER)[number]>,
) {
  let q = db
    .selectFrom('campaign_mailing_sends as s')
    .innerJoin('campaign_mailings as m', 'm.id', 's.campaign_mailing_id')
    .select([
      's.id',
      's.uuid',
      's.campaign_mailing_id',
      's.sent_at',
      's.subscription_list_name',
      'm.created_at as mailing_created_at',
    ])
    .where('s.customer_id', '=', customerId)
    .where('s.sent_at', 'is not', null);
  if (filter) q = q.where(sendsCondition(filter));
  return q
    .orderBy(SENDS_SORT[p.orderBy], p.direction)
    .orderBy('s.id', p.direction)
    .limit(p.limit)
    .offset(p.offset)
    .execute();
}

/** The SQL condition of a sends search, over sends `s` joined with their mailing `m`. */
export function sendsCondition(f: SendsFilter): Expression<SqlBool> {
  if (f.kind === 'equals') {
    const v = f.value;
    if (f.column === 'id')
      return 'uuid' in v ? sql<SqlBool>`s.uuid = ${v.uuid}` : sql<SqlBool>`s.id = ${v.id}`;
    return 'uuid' in v
      ? sql<SqlBool>`s.campaign_mailing_id in (select id from campaign_mailings where uuid = ${v.uuid})`
      : sql<SqlBool>`s.campaign_mailing_id = ${v.id}`;
  }
  if (f.kind === 'anywhere')
    return sql<SqlBool>`(${containsText(sql.ref('m.subject'), f.value)} or ${containsText(sql.ref('s.subscription_list_name'), f.value)})`;
  return containsText(sql.ref(f.column === 'subject' ? 'm.subject' : 's.subscription_list_name'), f.value);
}

const UNIQUE_LINK_SORT = {
  created_at: 'html_id',
  html_id: 'html_id',
  clicked: 'clicked',
} as const;

/** A page of the links of a send, by position, with their click totals. */
export async function pageOfSendLinks(
  db: Queryable,
  sendId: number,
  p: PageOf<(typeof UNIQUE_LINK_ORDER)[number]>,
  ranks: TargetRanks,
) {
  return db
    .selectFrom('campaign_send_links')
    .select(['html_id', 'target_url', 'clicked'])
    .where('send_id', '=', sendId)
    .orderBy(
      p.orderBy === 'target_url' ? byTarget('html_id', ranks) : UNIQUE_LINK_SORT[p.orderBy],
      p.direction,
    )
    .orderBy('html_id', p.direction)
    .limit(p.limit)
    .offset(p.offset)
    .execute();
}

/** Whether a send has a link at this position. */
export async function sendLinkExists(db: Queryable, sendId: number, htmlId: number): Promise<boolean> {
  const row = await db
    .selectFrom('campaign_send_links')
    .select('html_id')
    .where('send_id', '=', sendId)
    .where('html_id', '=', htmlId)
    .executeTakeFirst();
  return row !== undefined;
}

/** A page of the subscribers who clicked one link of a send (`htmlId`), or any of its links (null), each once. */
export async function pageOfLinkSubscribers(
  db: Queryable,
  customerId: number,
  sendId: number,
  htmlId: number | null,
  p: PageOf<(typeof LINK_SUBSCRIBER_ORDER)[number]>,
) {
  let clickers = db
    .selectFrom('marketing_link_clicks as c')
    .innerJoin('marketing_deliveries as d', 'd.id', 'c.delivery_id')
    .select('d.subscriber_id')
    .where('c.send_id', '=', sendId);
  if (htmlId !== null) clickers = clickers.where('c.html_id', '=', htmlId);
  return db
    .selectFrom('subscribers as s')
    .select(['s.id', 's.uuid', 's.email', 's.first_name', 's.last_name', 's.unsubscribed'])
    .where('s.customer_id', '=', customerId)
    .where('s.id', 'in', clickers)
    .orderBy(`s.${p.orderBy}`, p.direction)
    .orderBy('s.id', p.direction)
    .limit(p.limit)
    .offset(p.offset)
    .execute();
}

/** The custom field values of some subscribers, in field creation order. */
export async function fieldValuesOfMany(db: Queryable, subscriberIds: number[]) {
  if (subscriberIds.length === 0) return [];
  return db
    .selectFrom('subscriber_custom_field_values as v')
    .innerJoin('subscriber_custom_field_types as t', 't.id', 'v.field_type_id')
    .select(['v.subscriber_id', 't.uuid', 'v.value'])
    .where('v.subscriber_id', 'in', subscriberIds)
    .orderBy('v.field_type_id')
    .execute();
}

/** The counters of one send, or the sums of the counters of every send of the account. */
export async function sendCounters(
  db: Queryable,
  customerId: number,
  sendId: number | null,
): Promise<Record<keyof typeof TOTAL_COLUMNS, number>> {
  let q = db
    .selectFrom('campaign_mailing_sends')
    .select((eb) =>
      Object.entries(TOTAL_COLUMNS).map(([name, column]) =>
        eb.fn.coalesce(eb.fn.sum<number>(column), sql.lit(0)).as(name),
      ),
    )
    .where('customer_id', '=', customerId);
  if (sendId !== null) q = q.where('id', '=', sendId);
  const row = (await q.executeTakeFirstOrThrow()) as Record<string, unknown>;
  return Object.fromEntries(Object.keys(TOTAL_COLUMNS).map((name) => [name, Number(row[name])])) as Record<
    keyof typeof TOTAL_COLUMNS,
    number
  >;
}

const DELIVERY_SORT = { created_at: 'created_at', recipient: 'email' } as const;

/** A page of the deliveries of a send, or of every send and drip step of a mailing. */
export async function pageOfDeliveries(
  db: Queryable,
  customerId: number,
  by: { sendId: number } | { mailingId: number },
  p: PageOf<(typeof DELIVERIES_TABLE_ORDER)[number]>,
) {
  let q = db
    .selectFrom('marketing_deliveries')
    .select([
      'id',
      'uuid',
      'email',
      'status',
      'created_at',
      'first_opened_at',
      'click_count',
      'unsubscribed_at',
      'global_unsubscribed_at',
    ])
    .where('customer_id', '=', customerId);
  q = 'sendId' in by ? q.where('send_id', '=', by.sendId) : q.where('campaign_mailing_id', '=', by.mailingId);
  return q
    .orderBy(DELIVERY_SORT[p.orderBy], p.direction)
    .orderBy('id', p.direction)
    .limit(p.limit)
    .offset(p.offset)
    .execute();
}

/** The clicked links of some deliveries. */
export async function clickedLinksOf(db: Queryable, deliveryIds: number[]) {
  if (deliveryIds.length === 0) return [];
  return db
    .selectFrom('marketing_link_clicks')
    .select(['delivery_id', 'html_id', 'target_url', 'clicked'])
    .where('delivery_id', 'in', deliveryIds)
    .orderBy('html_id')
    .execute();
}
