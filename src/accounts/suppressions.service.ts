/**
 * The account's suppression list: an address whose delivery failed with a hard bounce (a permanent "no such mailbox"
 * reply) or that complained is listed with the reason and time, and the account's later transactional sends to it are
 * not attempted (the recipient is settled at once as `suppressed`). The list is on by default and can be turned off per
 * account, which stops both listing and skipping. Listed addresses are managed through the API and the command line.
 */
import { record, type ChangeBy } from '../audit/audit.service.ts';
import type { AppContext } from '../context.ts';
import type { Queryable } from '../db/types.ts';
import { AppError } from '../errors/app-error.ts';
import { coalesced, type GroupLookup } from '../db/coalesce.ts';
import {
  deleteSuppression,
  findSuppression,
  insertSuppression,
  listSuppressions,
  saveSuppressionListOn,
  suppressedAmong,
  suppressionListOn,
  type SuppressionRow,
} from './suppressions.repository.ts';

/** Why an address is listed. */
export type SuppressionReason = 'hard_bounce' | 'complaint' | 'manual';

/** A suppression as the API shows it. */
export interface Suppression {
  address: string;
  reason: SuppressionReason;
  detail: string;
  sourceTrackingId: string | null;
  created_at: string;
}

function view(row: SuppressionRow): Suppression {
  return {
    address: row.address,
    reason: row.reason,
    detail: row.detail,
    sourceTrackingId: row.message_id,
    created_at: new Date(Number(row.created_at)).toISOString(),
  };
}

/**
 * Whether a permanent failure's reply means the address itself is bad: 550, 551 or 553, or an enhanced status 5.1.x
 * (bad destination mailbox or system). Policy refusals (5.7.x: TLS required, spam) are not hard bounces.
 */
export function isHardBounce(response: string): boolean {
  const m = /^(5\d\d)(?:[ -](5\.\d{1,3}\.\d{1,3}))?/.exec(response.trim());
  if (!m) return false;
  if (m[2]) return m[2].startsWith('5.1.');
  return ['550', '551', '553'].includes(m[1]!);
}

/** Whether the status of a bounce that came back after delivery means the address itself is bad (5.1.x), the same rule. */
export const isBadAddressStatus = (status: string): boolean => status.startsWith('5.1.');

/** Lists an address for the account when its list is on; run inside the transaction that records the failure. */
export async function suppressAddress(
  db: Queryable,
  customerId: number,
  address: string,
  reason: SuppressionReason,
  detail: string,
  messageId: string | null,
  at: number,
): Promise<void> {
  if (!(await suppressionListOn(db, customerId))) return;
  await insertSuppression(db, {
    customer_id: customerId,
    address: address.toLowerCase(),
    reason,
    detail: detail.slice(0, 500),
    message_id: messageId,
    created_at: at,
  });
}

const listedLookups = new WeakMap<object, GroupLookup<number, string, SuppressionRow>>();

/** The listed addresses among those asked for: concurrent sends share one query per account (db/coalesce.ts). */
function listedOf(ctx: AppContext): GroupLookup<number, string, SuppressionRow> {
  let lookup = listedLookups.get(ctx.database);
  if (!lookup) {
    const reader = ctx.database.reader;
    lookup = coalesced((customerId: number, addresses: string[]) =>
      suppressedAmong(reader, customerId, addresses),
    );
    listedLookups.set(ctx.database, lookup);
  }
  return lookup;
}

/**
 * Of the given lower-cased addresses, those the account's list suppresses, with the reply text to record for each.
 * Read through `db` when given (a transaction); otherwise through the reader, concurrent sends sharing one query.
 */
export async function listedAmong(
  ctx: AppContext,
  customerId: number,
  addresses: string[],
  db?: Queryable,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (addresses.length === 0) return out;
  // The list is read first: it is usually empty for these addresses, so the setting is only read when it matters.
  const listed = db
    ? await suppressedAmong(db, customerId, addresses)
    : await listedOf(ctx)(customerId, addresses);
  if (listed.size === 0 || !(await suppressionListOn(db ?? ctx.database.reader, customerId))) return out;
  for (const [address, row] of listed)
    out.set(
      address,
      `not sent: the address is on the suppression list (${row.reason} at ${new Date(Number(row.created_at)).toISOString()})`,
    );
  return out;
}

/** A page of the account's suppression list, newest first. */
export async function suppressionPage(
  ctx: AppContext,
  customerId: number,
  page = 1,
  perPage = 100,
): Promise<{ suppressions: Suppression[] }> {
  const rows = await listSuppressions(ctx.database.db, customerId, perPage, (page - 1) * perPage);
  return { suppressions: rows.map(view) };
}

/** One listed address, or email.suppression_not_found. */
export async function oneSuppression(
  ctx: AppContext,
  customerId: number,
  address: string,
): Promise<Suppression> {
  const row = await findSuppression(ctx.database.db, customerId, address.trim().toLowerCase());
  if (!row) throw new AppError('email.suppression_not_found', `${address} is not on the suppression list`);
  return view(row);
}

/** Removes a listed address, so mail to it is attempted again; email.suppression_not_found when it was not listed. */
export async function removeSuppression(
  ctx: AppContext,
  customerId: number,
  address: string,
): Promise<{ message: string }> {
  const key = address.trim().toLowerCase();
  if (!(await deleteSuppression(ctx.database.db, customerId, key)))
    throw new AppError('email.suppression_not_found', `${address} is not on the suppression list`);
  return { message: `${key} removed from the suppression list` };
}

/** Adds an address by hand. */
export async function addSuppression(
  ctx: AppContext,
  customerId: number,
  address: string,
  detail = 'added by hand',
): Promise<Suppression> {
  const key = address.trim().toLowerCase();
  await insertSuppression(ctx.database.db, {
    customer_id: customerId,
    address: key,
    reason: 'manual',
    detail,
    message_id: null,
    created_at: Date.now(),
  });
  return oneSuppression(ctx, customerId, key);
}

/** Turns the account's suppression list on or off; recorded in the audit trail as changed `by`. */
export async function setSuppressionList(
  ctx: AppContext,
  customerId: number,
  on: boolean,
  by: ChangeBy,
): Promise<{ suppression_list: boolean }> {
  await ctx.database.db.transaction().execute(async (trx) => {
    await saveSuppressionListOn(trx, customerId, on, Date.now());
    await record(trx, {
      accountId: customerId,
      actor: by.actor,
      action: 'settings.suppression_list',
      target: `account:${customerId}`,
      ip: by.ip,
      detail: { suppression_list: on },
    });
  });
  return { suppression_list: on };
}
