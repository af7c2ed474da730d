/**
 * Marketing mail kept by the capture transport (the default of a fresh install): one sealed raw copy per delivery,
 * readable per send through the command line and account-wide in the console beside transactional copies, purged after
 * the content retention period like transactional copies.
 */
import type { AppContext } from '../../context.ts';
import type { PeriodicTask } from '../../jobs/scheduler.ts';
import { AppError } from '../../errors/app-error.ts';
import { resolveId } from '../ids.repository.ts';
import { capturedOfSendRows, purgeMarketingCaptured } from './deliveries.repository.ts';
import { findMarketingCaptured, listMarketingCaptured } from './captured.repository.ts';
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

/** A captured campaign or drip copy as the console lists it, with the mailing or drip it belongs to. */
export interface CapturedMarketingCopy {
  /** The delivery's UUID. */
  id: string;
  kind: 'campaign' | 'drip';
  envelope_from: string;
  envelope_to: string;
  created_at: string;
  /** The campaign mailing or drip campaign: its UUID and its subject or name. */
  source: { kind: 'mailing' | 'drip'; id: string; name: string } | null;
}

type CopyRow = Awaited<ReturnType<typeof listMarketingCaptured>>[number];

function toCopy(r: CopyRow): CapturedMarketingCopy {
  const drip = r.drip_enrollment_id !== null;
  const source = drip
    ? r.drip_uuid && { kind: 'drip' as const, id: r.drip_uuid, name: r.drip_name ?? '' }
    : r.mailing_uuid && { kind: 'mailing' as const, id: r.mailing_uuid, name: r.mailing_subject ?? '' };
  return {
    id: r.uuid,
    kind: drip ? 'drip' : 'campaign',
    envelope_from: r.envelope_from,
    envelope_to: r.envelope_to,
    created_at: new Date(Number(r.created_at)).toISOString(),
    source: source || null,
  };
}

/** The newest captured campaign and drip copies of an account (at most `limit`), optionally of one kind. */
export async function capturedMarketingOfAccount(
  ctx: AppContext,
  customerId: number,
  opts: { kind?: 'campaign' | 'drip'; limit: number },
): Promise<CapturedMarketingCopy[]> {
  return (await listMarketingCaptured(ctx.database.db, customerId, opts)).map(toCopy);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** One captured campaign or drip copy of the account by its delivery's UUID, with its raw message (null once purged). */
export async function capturedMarketingById(
  ctx: AppContext,
  customerId: number,
  id: string,
): Promise<CapturedMarketingCopy & { raw: string | null }> {
  const row = UUID.test(id)
    ? await findMarketingCaptured(ctx.database.db, customerId, id.toLowerCase())
    : undefined;
  if (!row) throw new AppError('not_found', `no captured message with id ${id}`);
  return {
    ...toCopy(row),
    raw: row.raw === null ? null : ctx.sealer.openText(row.raw, marketingCapturedAad(row.delivery_id)),
  };
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
