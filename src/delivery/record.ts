/**
 * How both delivery stores record an outcome: as an item of their merger in the next group commit (db/group-commit.ts),
 * with the end of the delivery's work row when the engine hands one over, so outcome and row end are one commit.
 */
import type { GroupCommitter, Merger } from '../db/group-commit.ts';
import type { FinishIn } from '../jobs/finish.ts';
import type { DeliveryItem, RecordedOutcome } from './model.ts';

/** An outcome waiting for a group commit, with the end of its work row when the commit is to write that too. */
export interface PendingOutcome {
  item: DeliveryItem;
  outcome: RecordedOutcome;
  finish?: FinishIn;
}

/**
 * Records `pending` with `merger`, which answers whether it was recorded and, if so, ended its work row in the same
 * transaction; once that commit returned, tells the row's worker.
 */
export async function recordMerged(
  committer: GroupCommitter,
  merger: Merger<PendingOutcome, boolean>,
  pending: PendingOutcome,
): Promise<boolean> {
  if (!(await committer.merge(merger, pending))) return false;
  pending.finish?.ended();
  return true;
}
