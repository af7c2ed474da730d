/**
 * Reports that come back for a campaign or drip delivery after it was handed on (read from its return path on port 25).
 * A permanent bounce turns a delivered delivery into a hard bounce and moves the send's, mailing's and subscriber's
 * counters from delivered to bounced; a bad address (status 5.1.x) joins the account's suppression list. A delay counts
 * a soft bounce once. A complaint adds the address to the suppression list, so later campaigns skip it.
 */
import type { AppContext } from '../../context.ts';
import type { DeliveryReport } from '../../mail/reports.ts';
import { isBadAddressStatus, suppressAddress } from '../../accounts/suppressions.service.ts';
import { pipelineMetrics } from '../../http/pipeline-metrics.ts';
import { bumpSubscriber, findDeliveryRow, reportOnDelivery } from './deliveries.repository.ts';
import { bumpCampaign } from './sends.repository.ts';

/** How a report changed a delivery. */
export type MarketingReportEffect = 'bounced' | 'delayed' | 'complained' | 'unchanged' | 'unknown';

/** Applies a report to marketing delivery `id`. */
export async function applyMarketingReport(
  ctx: AppContext,
  id: number,
  report: DeliveryReport,
  now = Date.now(),
): Promise<MarketingReportEffect> {
  const effect = await ctx.database.db.transaction().execute(async (trx): Promise<MarketingReportEffect> => {
    const d = await findDeliveryRow(trx, id);
    if (!d) return 'unknown';
    const source = `campaign delivery ${d.id}`;
    if (report.type === 'complaint') {
      await suppressAddress(
        trx,
        d.customer_id,
        d.email,
        'complaint',
        `${report.response}, ${source}`,
        null,
        now,
      );
      return 'complained';
    }
    if (!report.permanent) {
      if (!(await reportOnDelivery(trx, d.id, 'delay', report.response, now))) return 'unchanged';
      if (d.subscriber_id !== null) await bumpSubscriber(trx, d.subscriber_id, ['stat_soft_bounced']);
      if (d.campaign_mailing_id !== null)
        await bumpCampaign(trx, d.send_id, d.campaign_mailing_id, { soft_bounced_count: 1 }, now);
      return 'delayed';
    }
    if (!(await reportOnDelivery(trx, d.id, 'fail', report.response, now))) return 'unchanged';
    if (isBadAddressStatus(report.status))
      await suppressAddress(
        trx,
        d.customer_id,
        d.email,
        'hard_bounce',
        `${report.response}, ${source}`,
        null,
        now,
      );
    if (d.subscriber_id !== null) {
      await bumpSubscriber(trx, d.subscriber_id, ['stat_hard_bounced']);
      await bumpSubscriber(trx, d.subscriber_id, ['stat_delivered'], -1);
    }
    if (d.campaign_mailing_id !== null)
      await bumpCampaign(
        trx,
        d.send_id,
        d.campaign_mailing_id,
        { delivered_count: -1, bounced_count: 1, hard_bounced_count: 1 },
        now,
      );
    return 'bounced';
  });
  if (effect === 'bounced') pipelineMetrics.bounced.inc({ lane: 'marketing' });
  return effect;
}
