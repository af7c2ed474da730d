/**
 * What a send to a list would do if started now, for the console's review step: how many members the list has and how
 * many of them the send would mail after unsubscriptions, missing confirmations and the suppression list; and whether
 * a mailing was already sent.
 */
import type { AppContext } from '../../context.ts';
import { listedAmong } from '../../accounts/suppressions.service.ts';
import { requireList } from '../lists/lists.service.ts';
import { requireMailing } from '../mailings/mailings.service.ts';
import { reachableMembers } from './expansion.repository.ts';
import { mailingHasSend } from './sends.repository.ts';

/** A list's audience as a send started now would see it. */
export interface AudienceCount {
  listId: number;
  listName: string;
  /** The account's list of all contacts. */
  isDefault: boolean;
  members: number;
  /** Subscribed, and confirmed where the list asks for it. */
  reachable: number;
  /** Of those, the addresses on the account's suppression list (skipped when delivered). */
  suppressed: number;
  /** Who would get the mail: reachable less suppressed. */
  recipients: number;
}

const PAGE = 1000;

/** Counts the audience of a send of the account to this list (by an id as sent). */
export async function audienceCount(
  ctx: AppContext,
  customerId: number,
  rawListId: string | number,
): Promise<AudienceCount> {
  const db = ctx.database.reader;
  const list = await requireList(db, customerId, rawListId);
  let cursor = 0;
  let reachable = 0;
  let suppressed = 0;
  for (;;) {
    const page = await reachableMembers(db, list.id, cursor, PAGE);
    if (page.length === 0) break;
    reachable += page.length;
    suppressed += (
      await listedAmong(
        ctx,
        customerId,
        page.map((m) => m.email.toLowerCase()),
        db,
      )
    ).size;
    cursor = page.at(-1)!.id;
    if (page.length < PAGE) break;
  }
  return {
    listId: list.id,
    listName: list.name,
    isDefault: list.is_default === 1,
    members: Number(list.subscriber_count),
    reachable,
    suppressed,
    recipients: reachable - suppressed,
  };
}

/** Whether the mailing went out, or is scheduled to (a schedule cancelled before it began does not count). */
export async function mailingWasSent(
  ctx: AppContext,
  customerId: number,
  rawMailingId: string | number,
): Promise<boolean> {
  const mailing = await requireMailing(ctx.database.reader, customerId, rawMailingId);
  return mailingHasSend(ctx.database.reader, Number(mailing.id));
}
