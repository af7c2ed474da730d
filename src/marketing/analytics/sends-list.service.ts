/** The sends listing (`GET /campaign_mailing_sends`, searchable, paged) and the deliveries listing (`GET /campaign_mailing_deliveries`). */
import type { AppContext } from '../../context.ts';
import { parseSendsSearch } from './sends-search.ts';
import { given, iso, requireSend } from './analytics.service.ts';
import { requireMailing } from '../mailings/mailings.service.ts';
import { pagedAnswer } from '../paging.ts';
import {
  countDeliveries,
  countSends,
  pageOfDeliveries,
  pageOfSends,
  type DELIVERY_LIST_ORDER,
  type DeliverySelector,
  type SEND_LIST_ORDER,
} from './sends-list.repository.ts';
import { sendViews } from '../campaigns/send-view.ts';

/** Paging and order as the listings take them. */
interface Listing<K extends string> {
  order_by: K;
  order: 'asc' | 'desc';
  items: number;
  page: number;
}

const pageOf = <K extends string>(q: Listing<K>) => ({
  page: q.page,
  items: q.items,
  limit: q.items,
  offset: (q.page - 1) * q.items,
  orderBy: q.order_by,
  direction: q.order,
});

/** A page of the account's sends (every state), filtered by the sends-table `search`, with `page_info` and `total_count`. */
export async function sendsListOf(
  ctx: AppContext,
  customerId: number,
  q: Listing<(typeof SEND_LIST_ORDER)[number]> & { search?: string },
) {
  const filter = parseSendsSearch(q.search);
  const db = ctx.database.reader;
  const page = pageOf(q);
  const [rows, total] = await Promise.all([
    pageOfSends(db, customerId, filter, page),
    countSends(db, customerId, filter),
  ]);
  return pagedAnswer(await sendViews(db, rows), page, total);
}

/** A page of deliveries: of a send, of a mailing, or of the whole account. */
export async function deliveriesListOf(
  ctx: AppContext,
  customerId: number,
  q: Listing<(typeof DELIVERY_LIST_ORDER)[number]> & {
    campaign_mailing_send_id?: string;
    campaign_mailing_id?: string;
  },
) {
  const db = ctx.database.reader;
  const sendRaw = given(q.campaign_mailing_send_id);
  const mailingRaw = given(q.campaign_mailing_id);
  const by: DeliverySelector = {
    ...(sendRaw !== undefined && { sendId: (await requireSend(db, customerId, sendRaw)).id }),
    ...(mailingRaw !== undefined && {
      mailingId: Number((await requireMailing(db, customerId, mailingRaw)).id),
    }),
  };
  const page = pageOf(q);
  const [rows, total] = await Promise.all([
    pageOfDeliveries(db, customerId, by, page),
    countDeliveries(db, customerId, by),
  ]);
  const data = rows.map((d) => ({
    id: d.uuid,
    type: 'campaign_mailing_delivery' as const,
    attributes: {
      campaign_mailing_send_id: d.send_key === null ? null : Number(d.send_key),
      campaign_mailing_id: d.mailing_key === null ? null : Number(d.mailing_key),
      subscriber_id: d.subscriber_uuid,
      email: d.email,
      status: d.status,
      delivery_status: d.delivery_status,
      delivered_at: iso(d.delivered_at),
      opened_at: iso(d.first_opened_at),
      open_count: Number(d.open_count),
      click_count: Number(d.click_count),
      soft_bounced: Number(d.soft_bounced) === 1,
      unsubscribed_at: iso(d.unsubscribed_at),
      created_at: iso(d.created_at)!,
    },
  }));
  return pagedAnswer(data, page, total);
}
