/** The capture store as the API and the command line show it: raw MIME opened from its sealed form. */
import type { AppContext } from '../context.ts';
import type { Sealer } from '../crypto/sealer.ts';
import { AppError } from '../errors/app-error.ts';
import { findCaptured, listCaptured, type CapturedRow } from './captured.repository.ts';

/** A captured message as shown. `raw` is null once retention has purged it. */
export interface CapturedMessage {
  id: number;
  sourceTrackingId: string;
  recipient: string | null;
  envelope_from: string;
  envelope_to: string;
  raw: string | null;
  created_at: string;
}

/** The associated data a captured raw message is sealed with: it opens only on its own row's message and recipient. */
export const capturedAad = (messageId: string, recipientId: number) => `captured:${messageId}:${recipientId}`;

/** Opens a sealed captured raw message. */
export function openCapturedRaw(
  sealer: Sealer,
  row: { message_id: string; recipient_id: number; raw: string },
): string {
  return sealer.openText(row.raw, capturedAad(row.message_id, row.recipient_id));
}

function toCaptured(sealer: Sealer, row: CapturedRow): CapturedMessage {
  return {
    id: row.id,
    sourceTrackingId: row.message_id,
    recipient: row.recipient ?? null,
    envelope_from: row.envelope_from,
    envelope_to: row.envelope_to,
    raw: row.raw === null ? null : openCapturedRaw(sealer, { ...row, raw: row.raw }),
    created_at: new Date(row.created_at).toISOString(),
  };
}

/** The newest captured messages of an account (at most `limit`), optionally of one sent message. */
export async function capturedOfAccount(
  ctx: AppContext,
  customerId: number,
  opts: { sourceTrackingId?: string; limit?: number } = {},
): Promise<CapturedMessage[]> {
  const rows = await listCaptured(ctx.database.db, customerId, {
    messageId: opts.sourceTrackingId,
    limit: opts.limit ?? 100,
  });
  return rows.map((r) => toCaptured(ctx.sealer, r));
}

/** One captured message by id; with `customerId`, only one of that account. */
export async function capturedById(
  ctx: AppContext,
  id: string | number,
  customerId?: number,
): Promise<CapturedMessage> {
  // Exactly digits: Number() would also read " 5", "0x5" or "5e0" as 5.
  const n = /^[1-9]\d{0,14}$/.test(String(id)) ? Number(id) : 0;
  const found = n > 0 ? await findCaptured(ctx.database.db, n) : undefined;
  const row = found && (customerId === undefined || found.customer_id === customerId) ? found : undefined;
  if (!row) throw new AppError('not_found', `no captured message with id ${String(id)}`);
  return toCaptured(ctx.sealer, row);
}
