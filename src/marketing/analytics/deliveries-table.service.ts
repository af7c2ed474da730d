/** `GET /analytics/campaign_mailing_deliveries_table`: one row per email of a send, or of every send and drip step of a mailing. */
import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors/app-error.ts';
import { resolveId } from '../ids.repository.ts';
import { openCampaignLink } from '../deliveries/link-targets.ts';
import { clickedLinksOf, pageOfDeliveries } from './analytics.repository.ts';
import type { DELIVERIES_TABLE_ORDER } from './analytics.schemas.ts';
import { given, iso, missing, pageOf, requireSend, type ListQuery } from './analytics.service.ts';

/** A row of the deliveries table. */
export interface DeliveriesTableRow {
  id: string;
  recipient: string;
  created_at: string;
  delivered: boolean;
  viewed: boolean;
  clicked: boolean;
  bounced: boolean;
  unsubscribed: boolean;
  tracking_links: Record<string, string>;
}

/** `GET /analytics/campaign_mailing_deliveries_table` query. */
export type DeliveriesTableQuery = ListQuery<(typeof DELIVERIES_TABLE_ORDER)[number]> & {
  campaign_mailing_send_id?: string;
  campaign_mailing_id?: string;
};

/** A page of the deliveries of a send (which must be of the mailing, when one is named too) or of a mailing. */
export async function deliveriesTableOf(
  ctx: AppContext,
  customerId: number,
  q: DeliveriesTableQuery,
): Promise<DeliveriesTableRow[]> {
  const db = ctx.database.reader;
  const sendRaw = given(q.campaign_mailing_send_id);
  const mailingRaw = given(q.campaign_mailing_id);
  if (sendRaw === undefined && mailingRaw === undefined)
    throw missing(
      'campaign_mailing_send_id',
      'is required (or campaign_mailing_id for every send of a mailing)',
    );
  let mailingId: number | undefined;
  if (mailingRaw !== undefined) {
    const id = await resolveId(db, 'campaign_mailings', customerId, mailingRaw);
    if (id === null)
      throw new AppError('marketing.mailing_not_found', `campaign mailing ${mailingRaw} was not found`);
    mailingId = id;
  }
  const send = sendRaw === undefined ? undefined : await requireSend(db, customerId, sendRaw);
  if (send && mailingId !== undefined && send.mailingId !== mailingId)
    throw new AppError(
      'marketing.send_not_found',
      `campaign mailing send ${sendRaw} is not a send of mailing ${mailingRaw}`,
    );
  const rows = await pageOfDeliveries(
    db,
    customerId,
    send ? { sendId: send.id } : { mailingId: mailingId! },
    pageOf(q),
  );
  const links = new Map<number, Record<string, string>>();
  for (const l of await clickedLinksOf(
    db,
    rows.map((r) => Number(r.id)),
  )) {
    const of = links.get(Number(l.delivery_id)) ?? {};
    const url = openCampaignLink(
      ctx.sealer,
      { deliveryId: Number(l.delivery_id) },
      Number(l.html_id),
      l.target_url,
    );
    // A URL that stands at several positions of the email adds up its clicks.
    of[url] = String(Number(of[url] ?? 0) + Number(l.clicked));
    links.set(Number(l.delivery_id), of);
  }
  return rows.map((r) => ({
    id: r.uuid,
    recipient: r.email,
    created_at: iso(r.created_at)!,
    delivered: r.status === 'delivered',
    viewed: r.first_opened_at !== null,
    clicked: Number(r.click_count) > 0,
    bounced: r.status === 'failed',
    unsubscribed: r.unsubscribed_at !== null || r.global_unsubscribed_at !== null,
    tracking_links: links.get(Number(r.id)) ?? {},
  }));
}
