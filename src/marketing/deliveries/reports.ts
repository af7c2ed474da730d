/**
 * Reports that come back for a campaign or drip delivery after it was handed on (read from its return path on port 25).
 * A permanent bounce turns a delivered delivery into a hard bounce and moves the send's, mailing's and subscriber's
 * counters from delivered to bounced; a bad address (status 5.1.x) joins the account's suppression list. A delay counts
 * a soft bounce once. Test emails (no subscriber) change state but no counter. A complaint adds the address to the
 * suppression list, so later campaigns skip it.
 */
import type { AppContext } from '../../context.ts';
import type { DeliveryReport } from '../../mail/reports.ts';
import { isBadAddressStatus, suppressAddress } from '../../accounts/suppressions.service.ts';
import { pipelineMetrics } from '../../http/pipeline-metrics.ts';
import type { Queryable } from '../../db/types.ts';
import {
  bumpSubscriber,
  findDeliveryRow,
  reportOnDelivery,
  type DeliveryRow,
} from './deliveries.repository.ts';
import { bumpCampaign } from './send-progress.repository.ts';

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
    if (report.type === 'bounce') {
      const change = report.permanent ? 'fail' : 'delay';
      if (!(await reportOnDelivery(trx, d.id, change, report.response, now))) return 'unchanged';
      await count(trx, d, report.permanent, now);
    }
    const listAs =
      report.type === 'complaint'
        ? 'complaint'
        : report.permanent && isBadAddressStatus(report.status)
          ? 'hard_bounce'
          : null;
    const detail = `${report.response}, campaign delivery ${d.uuid}`;
    if (listAs) await suppressAddress(trx, d.customer_id, d.email, listAs, detail, null, now);
    return report.type === 'complaint' ? 'complained' : report.permanent ? 'bounced' : 'delayed';
  });
  if (effect === 'bounced') pipelineMetrics.bounced.inc({ lane: 'marketing' });
  return effect;
}

/** Moves the counters of a delivery a report failed or delayed; test emails (no subscriber) count nowhere, as before. */
async function count(trx: Queryable, d: DeliveryRow, permanent: boolean, now: number): Promise<void> {
  if (d.subscriber_id === null) return;
  if (permanent) {
    await bumpSubscriber(trx, d.subscriber_id, ['stat_hard_bounced']);
    await bumpSubscriber(trx, d.subscriber_id, ['stat_delivered'], -1);
  } else await bumpSubscriber(trx, d.subscriber_id, ['stat_soft_bounced']);
  if (d.campaign_mailing_id !== null)
    await bumpCampaign(
      trx,
      d.send_id,
      d.campaign_mailing_id,
      permanent
        ? { delivered_count: -1, bounced_count: 1, hard_bounced_count: 1 }
        : { soft_bounced_count: 1 },
      now,
    );
}
