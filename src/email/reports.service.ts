/**
 * Reports that come back for a transactional recipient after its delivery (read from its return path on port 25).
 * A permanent bounce fails the recipient (`hard bounced`, a `permanent_failure` event and its webhook), also when the
 * next hop had accepted it; a bad address (status 5.1.x) is added to the suppression list. A delay marks a delivered
 * recipient `soft bounced` with a `temporary_failure` event: the next hop keeps trying, Sealpost does not send again.
 * A complaint adds the address to the suppression list and a `complained` event to the message's log, which is not
 * pushed (spam complaints are not webhook events). Each is one transaction.
 */
import type { AppContext } from '../context.ts';
import type { DeliveryReport } from '../mail/reports.ts';
import { DELIVERY_STATUS } from '../delivery/outcome.ts';
import { pipelineMetrics } from '../http/pipeline-metrics.ts';
import { isBadAddressStatus, suppressAddress } from '../accounts/suppressions.service.ts';
import { appendEvent } from '../webhooks/webhooks.outbox.ts';
import { countFinalRecipient, findReportedRecipient, reportOnRecipient } from './delivery.repository.ts';

/** How a report changed a delivery. */
export type ReportEffect = 'bounced' | 'delayed' | 'complained' | 'unchanged' | 'unknown';

/** Applies a report to transactional recipient `recipientId`. */
export async function applyTransactionalReport(
  ctx: AppContext,
  recipientId: number,
  report: DeliveryReport,
  now = Date.now(),
): Promise<ReportEffect> {
  const effect = await ctx.database.db.transaction().execute(async (trx): Promise<ReportEffect> => {
    const r = await findReportedRecipient(trx, recipientId);
    if (!r) return 'unknown';
    const event = (name: string, status: string) =>
      appendEvent(trx, {
        customer_id: r.customer_id,
        message_id: r.message_id,
        recipient_id: r.id,
        event: name,
        data: JSON.stringify({ recipient: r.address, status, response: report.response }),
        created_at: now,
      });
    if (report.type === 'complaint') {
      await suppressAddress(trx, r.customer_id, r.address, 'complaint', report.response, r.message_id, now);
      await event('complained', 'complained');
      return 'complained';
    }
    if (!report.permanent) {
      if (!(await reportOnRecipient(trx, r.id, 'delay', soft(report.response), now))) return 'unchanged';
      await event('temporary_failure', DELIVERY_STATUS.softBounced);
      return 'delayed';
    }
    if (!(await reportOnRecipient(trx, r.id, 'fail', hard(report.response), now))) return 'unchanged';
    if (r.status === 'queued' || r.status === 'deferred') await countFinalRecipient(trx, r.message_id, now);
    if (isBadAddressStatus(report.status))
      await suppressAddress(trx, r.customer_id, r.address, 'hard_bounce', report.response, r.message_id, now);
    await event('permanent_failure', DELIVERY_STATUS.hardBounced);
    return 'bounced';
  });
  if (effect === 'bounced') pipelineMetrics.bounced.inc({ lane: 'transactional' });
  return effect;
}

const hard = (response: string) => ({
  delivery_status: DELIVERY_STATUS.hardBounced,
  last_response: response,
});
const soft = (response: string) => ({
  delivery_status: DELIVERY_STATUS.softBounced,
  last_response: response,
});
