/**
 * What the port-25 listener applies reports with: transactional recipients through the email module, campaign and drip
 * deliveries through marketing, which the SMTP room sits below and so is handed in here.
 */
import type { AppContext } from '../context.ts';
import type { ReportHandlers } from '../smtp/bounce-inbox.ts';
import { applyTransactionalReport } from '../email/reports.service.ts';
import { applyMarketingReport } from '../marketing/deliveries/reports.ts';

/** The report handlers of a running SMTP role. */
export function reportHandlers(ctx: AppContext): ReportHandlers {
  return {
    transactional: (id, report) => applyTransactionalReport(ctx, id, report),
    marketing: (id, report) => applyMarketingReport(ctx, id, report),
  };
}
