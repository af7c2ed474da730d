/**
 * Suppression of transactional sends, from two sources: the account's suppression list (hard bounces, complaints,
 * addresses added by hand; see email/suppressions.service.ts), and, for an account that opted in
 * (`suppress_transactional`), subscribers who unsubscribed globally. The submit function asks once for all recipients
 * of the messages it is about to commit and settles the suppressed ones at once instead of delivering to them.
 */
import type { AppContext } from '../context.ts';
import { globallyUnsubscribed } from './settings.repository.ts';
import { suppressesTransactional } from './settings.service.ts';
import { listedAmong } from './suppressions.service.ts';

/** The receipt's deliveryStatus of a recipient that was not delivered to because it unsubscribed. */
export const SUPPRESSED_STATUS = 'suppressed';

/** What the recipient row keeps as the reason. */
const SUPPRESSED_RESPONSE = 'not sent: the address unsubscribed from all mail of this account';

/** The account's own transactional mail; system notifications and campaigns are not suppressed here. */
const SUPPRESSIBLE_SOURCES: ReadonlySet<string> = new Set(['api', 'template', 'smtp']);

const NONE: ReadonlyMap<string, string> = new Map();

/** The recipient fields of a message, as submit sees them. */
interface Addressed {
  to: readonly { address: string }[];
  cc: readonly { address: string }[];
  bcc: readonly { address: string }[];
}

const QUEUED = { status: 'queued', delivery_status: 'processing' } as const;

/** The lower-cased addresses among the messages' recipients that must not be delivered to, each with the reason to record. */
export async function suppressedRecipients(
  ctx: AppContext,
  customerId: number,
  source: string,
  messages: readonly Addressed[],
): Promise<ReadonlyMap<string, string>> {
  if (!SUPPRESSIBLE_SOURCES.has(source)) return NONE;
  const keys = new Set<string>();
  for (const m of messages)
    for (const list of [m.to, m.cc, m.bcc]) for (const box of list) keys.add(box.address.toLowerCase());
  if (keys.size === 0) return NONE;
  const out = await listedAmong(ctx, customerId, [...keys]);
  if (await suppressesTransactional(ctx, customerId))
    for (const key of await globallyUnsubscribed(ctx.database.reader, customerId, [...keys]))
      if (!out.has(key)) out.set(key, SUPPRESSED_RESPONSE);
  return out.size === 0 ? NONE : out;
}

/** The state a recipient row starts in: queued for delivery, or already final as suppressed. */
export function recipientStart(
  suppressed: ReadonlyMap<string, string>,
  address: string,
): { status: 'queued' | 'failed'; delivery_status: string; last_response?: string } {
  const reason = suppressed.get(address.toLowerCase());
  return reason ? { status: 'failed', delivery_status: SUPPRESSED_STATUS, last_response: reason } : QUEUED;
}
