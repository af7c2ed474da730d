/** SQL for reading captured marketing mail account-wide: each copy with its kind (campaign or drip) and its mailing. */
import type { Queryable } from '../../db/types.ts';

function capturedQuery(db: Queryable, customerId: number) {
  return db
    .selectFrom('marketing_captured as c')
    .innerJoin('marketing_deliveries as d', 'd.id', 'c.delivery_id')
    .leftJoin('campaign_mailings as m', 'm.id', 'd.campaign_mailing_id')
    .leftJoin('drip_enrollments as e', 'e.id', 'd.drip_enrollment_id')
    .leftJoin('drip_campaigns as dc', 'dc.id', 'e.drip_campaign_id')
    .select([
      'c.delivery_id',
      'd.uuid',
      'd.drip_enrollment_id',
      'c.envelope_from',
      'c.envelope_to',
      'c.created_at',
      'm.uuid as mailing_uuid',
      'm.subject as mailing_subject',
      'dc.uuid as drip_uuid',
      'dc.name as drip_name',
    ])
    .where('c.customer_id', '=', customerId);
}

/** An account's captured marketing copies, newest first, optionally of campaigns or of drips only. */
export async function listMarketingCaptured(
  db: Queryable,
  customerId: number,
  opts: { kind?: 'campaign' | 'drip'; limit: number },
) {
  let q = capturedQuery(db, customerId);
  if (opts.kind === 'campaign') q = q.where('d.drip_enrollment_id', 'is', null);
  if (opts.kind === 'drip') q = q.where('d.drip_enrollment_id', 'is not', null);
  return q.orderBy('c.created_at', 'desc').orderBy('c.delivery_id', 'desc').limit(opts.limit).execute();
}

/** One captured marketing copy of the account by its delivery's UUID, with its sealed raw message. */
export async function findMarketingCaptured(db: Queryable, customerId: number, uuid: string) {
  return capturedQuery(db, customerId).select('c.raw').where('d.uuid', '=', uuid).executeTakeFirst();
}
