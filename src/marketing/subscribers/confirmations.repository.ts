/**
 * What joining a list sets off: on a list that asks for double opt-in, the confirmation emails of its new members.
 * It lives with the membership writers, which call it inside their transactions; optin sends the emails.
 */
import type { Queryable } from '../../db/types.ts';
import { enqueueJob } from '../../jobs/jobs.repository.ts';

/** The queue of confirmation-email work rows (one per list and moment members joined it). */
export const CONFIRM_QUEUE = 'marketing.confirm';

/**
 * After members joined a list at `now`: when the list asks for confirmation, one work row sends their confirmation
 * emails. Called by every writer of memberships, inside its transaction.
 */
export async function queueConfirmations(db: Queryable, listId: number, now: number): Promise<void> {
  const list = await db
    .selectFrom('subscription_lists')
    .select('double_opt_in')
    .where('id', '=', listId)
    .executeTakeFirst();
  if (list?.double_opt_in !== 1) return;
  await enqueueJob(
    db,
    { queue: CONFIRM_QUEUE, payload: { listId }, uniqueKey: `marketing.confirm:${listId}:${now}` },
    now,
  );
}
