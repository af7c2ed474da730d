/**
 * Suppression of transactional sends: for an account that opted in (`suppress_transactional`), the submit function asks
 * which recipients of the messages it is about to commit unsubscribed globally, in one look-up for all of them, and
 * settles those recipients at once instead of delivering to them. Accounts that did not opt in pay one cached read.
 */
import type { AppContext } from '../context.ts';
import { globallyUnsubscribed } from './settings.repository.ts';
import { suppressesTransactional } from './settings.service.ts';

/** The receipt's deliveryStatus of a recipient that was not delivered to because it unsubscribed. */
export const SUPPRESSED_STATUS = 'suppressed';

/** What the recipient row keeps as the reason. */
const SUPPRESSED_RESPONSE = 'not sent: the address unsubscribed from all mail of this account';

/** The account's own transactional mail; system notifications and campaigns are not suppressed here. */
const SUPPRESSIBLE_SOURCES: ReadonlySet<string> = new Set(['api', 'template', 'smtp']);

const NONE: ReadonlySet<string> = new Set();

/** The recipient fields of a message, as submit sees them. */
interface Addressed {
  to: readonly { address: string }[];
  cc: readonly { address: string }[];
  bcc: readonly { address: string }[];
}

const QUEUED = { status: 'queued', delivery_status: 'processing' } as const;

/** The lower-cased addresses among the messages' recipients that must not be delivered to; empty unless the account opted in. */
export async function suppressedRecipients(
  ctx: AppContext,
  customerId: number,
  source: string,
  messages: readonly Addressed[],
): Promise<ReadonlySet<string>> {
  if (!SUPPRESSIBLE_SOURCES.has(source) || !(await suppressesTransactional(ctx, customerId))) return NONE;
  const keys = new Set<string>();
  for (const m of messages) for (const list of [m.to, m.cc, m.bcc]) for (const box of list) keys.add(box.address.toLowerCase());
  return keys.size === 0 ? NONE : globallyUnsubscribed(ctx.database.reader, customerId, [...keys]);
}

/** The state a recipient row starts in: queued for delivery, or already final as suppressed. */
export function recipientStart(
  suppressed: ReadonlySet<string>,
  address: string,
): { status: 'queued' | 'failed'; delivery_status: string; last_response?: string } {
  return suppressed.has(address.toLowerCase())
    ? { status: 'failed', delivery_status: SUPPRESSED_STATUS, last_response: SUPPRESSED_RESPONSE }
    : QUEUED;
}
