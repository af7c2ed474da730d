/**
 * Marketing mail kept by the capture transport (the default of a fresh install): one sealed raw copy per delivery,
 * readable per send through the command line, purged after the content retention period like transactional copies.
 */
import type { AppContext } from '../../context.ts';
import type { PeriodicTask } from '../../jobs/scheduler.ts';
import { AppError } from '../../errors/app-error.ts';
import { resolveId } from '../ids.repository.ts';
import { capturedOfSendRows, purgeMarketingCaptured } from './deliveries.repository.ts';
import { marketingCapturedAad } from './delivery.ts';

const DAY_MS = 86_400_000;

/** A captured marketing email as shown. `raw` is null once retention has purged it. */
export interface CapturedMarketingMail {
  delivery_id: number;
  envelope_from: string;
  envelope_to: string;
  raw: string | null;
  created_at: string;
}

/** The captured emails of one send of an account (named by its integer id or its UUID), by delivery. */
export async function capturedOfSend(
  ctx: AppContext,
  customerId: number,
  rawSendId: string | number,
  limit = 100,
): Promise<CapturedMarketingMail[]> {
  const sendId = await resolveId(ctx.database.db, 'campaign_mailing_sends', customerId, rawSendId);
  if (sendId === null)
    throw new AppError(
      'marketing.send_not_found',
      `campaign mailing send ${String(rawSendId)} was not found`,
    );
  const rows = await capturedOfSendRows(ctx.database.db, customerId, sendId, limit);
  return rows.map((r) => ({
    delivery_id: r.delivery_id,
    envelope_from: r.envelope_from,
    envelope_to: r.envelope_to,
    raw: r.raw === null ? null : ctx.sealer.openText(r.raw, marketingCapturedAad(r.delivery_id)),
    created_at: new Date(Number(r.created_at)).toISOString(),
  }));
}

/** The periodic task that purges captured marketing mail past the content retention period. */
export function marketingRetentionTask(ctx: AppContext): PeriodicTask {
  return {
    name: 'marketing.retention',
    everyMs: 3_600_000,
    run: async (now) => {
      const purged = await purgeMarketingCaptured(
        ctx.database.db,
        now - ctx.config.contentRetentionDays * DAY_MS,
      );
      if (purged > 0) ctx.log.info({ captured: purged }, 'captured marketing mail purged by retention');
    },
  };
}
