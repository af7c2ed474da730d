/** SQL of the sends and deliveries listings: pages in a chosen order, and how many match. */
import type { Queryable } from '../../db/types.ts';
import { sendsCondition, type SendsFilter } from './analytics.repository.ts';

/** Sort keys of the sends listing. */
export const SEND_LIST_ORDER = [
  'created_at',
  'send_at',
  'sent_at',
  'subscription_list_name',
  'subject',
] as const;
/** Sort keys of the deliveries listing. */
export const DELIVERY_LIST_ORDER = ['created_at', 'email', 'delivered_at', 'status'] as const;

/** A page of a listing. */
export interface ListingPage<K extends string> {
  orderBy: K;
  direction: 'asc' | 'desc';
  limit: number;
  offset: number;
}

const SEND_SORT = {
  created_at: 's.created_at',
  send_at: 's.send_at',
  sent_at: 's.sent_at',
  subscription_list_name: 's.subscription_list_name',
  subject: 'm.subject',
} as const;

function sends(db: Queryable, customerId: number, filter: SendsFilter | null) {
  let q = db
    .selectFrom('campaign_mailing_sends as s')
    .innerJoin('campaign_mailings as m', 'm.id', 's.campaign_mailing_id')
    .where('s.customer_id', '=', customerId);
  if (filter) q = q.where(sendsCondition(filter));
  return q;
}

/** A page of the account's sends in every state. */
export async function pageOfSends(
  db: Queryable,
  customerId: number,
  filter: SendsFilter | null,
  p: ListingPage<(typeof SEND_LIST_ORDER)[number]>,
) {
  return sends(db, customerId, filter)
    .selectAll('s')
    .orderBy(SEND_SORT[p.orderBy], p.direction)
    .orderBy('s.id', p.direction)
    .limit(p.limit)
    .offset(p.offset)
    .execute();
}

/** How many of the account's sends match. */
export async function countSends(
  db: Queryable,
  customerId: number,
  filter: SendsFilter | null,
): Promise<number> {
  const r = await sends(db, customerId, filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Which deliveries a listing takes: of one send, of one mailing, or every one of the account. */
export interface DeliverySelector {
  sendId?: number;
  mailingId?: number;
}

function deliveries(db: Queryable, customerId: number, by: DeliverySelector) {
  let q = db.selectFrom('marketing_deliveries as d').where('d.customer_id', '=', customerId);
  if (by.sendId !== undefined) q = q.where('d.send_id', '=', by.sendId);
  if (by.mailingId !== undefined) q = q.where('d.campaign_mailing_id', '=', by.mailingId);
  return q;
}

/** A page of deliveries. */
export async function pageOfDeliveries(
  db: Queryable,
  customerId: number,
  by: DeliverySelector,
  p: ListingPage<(typeof DELIVERY_LIST_ORDER)[number]>,
) {
  return deliveries(db, customerId, by)
    .leftJoin('campaign_mailing_sends as cs', 'cs.id', 'd.send_id')
    .leftJoin('campaign_mailings as cm', 'cm.id', 'd.campaign_mailing_id')
    .leftJoin('subscribers as sb', 'sb.id', 'd.subscriber_id')
    .select([
      'd.id',
      'd.uuid',
      'cs.id as send_key',
      'cm.id as mailing_key',
      'sb.uuid as subscriber_uuid',
      'd.email',
      'd.status',
      'd.delivery_status',
      'd.delivered_at',
      'd.first_opened_at',
      'd.open_count',
      'd.click_count',
      'd.soft_bounced',
      'd.unsubscribed_at',
      'd.created_at',
    ])
    .orderBy(`d.${p.orderBy}`, p.direction)
    .orderBy('d.id', p.direction)
    .limit(p.limit)
    .offset(p.offset)
    .execute();
}

/** How many deliveries match. */
export async function countDeliveries(
  db: Queryable,
  customerId: number,
  by: DeliverySelector,
): Promise<number> {
  const r = await deliveries(db, customerId, by)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}
