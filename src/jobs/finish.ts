/**
 * How a handler's work row ends inside the transaction that records its work: the handler's own (FinishIn called),
 * or a write that records the work of many handlers at once (finishAllIn), which also claims their lanes' next rows.
 */
import type { Queryable } from '../db/types.ts';
import { completeJobs } from './jobs.repository.ts';

/**
 * Marks the row done inside the handler's own transaction, so that what the handler records and the end of its row
 * are one commit. Called, it ends the row in `trx` and tells the worker at once: the handler must not return normally
 * unless that transaction committed. A write that records the work of many handlers at once ends all their rows with
 * finishAllIn and calls `ended()` of each once its transaction has committed. Either way the worker writes nothing
 * more for the row.
 */
export interface FinishIn {
  (trx: Queryable): Promise<void>;
  readonly jobId: number;
  /** The lease owner the row is ended under (its worker). */
  readonly owner: string;
  /** The clock of the row's worker. */
  readonly now: () => number;
  /** Tells the row's worker that a committed transaction ended the row. */
  readonly ended: () => void;
  /** The row's lane, which claims its next rows in the transaction that ends rows of it (see finishAllIn). */
  readonly lane?: Lane;
}

/** A lane of a worker, as finishAllIn sees it. */
export interface Lane {
  /**
   * Claims in `trx`, which ends the rows of `finishes` (rows of this lane), as many rows as the lane will have room for
   * once they have ended, or none. Each row claimed is given to one of the finishes and starts when that finish's
   * handler returns, if `ended()` was called (`trx` committed); if `trx` rolled back, the row was never claimed and is
   * let go.
   */
  claimIn(trx: Queryable, finishes: readonly FinishIn[]): Promise<void>;
}

/**
 * Ends the rows of `finishes` in `trx` with one statement per worker instead of one per row, and lets their lanes claim
 * their next rows in `trx` (claim, outcome and row end: one commit). The caller calls `ended()` of each once `trx` has
 * committed, and only then: a row claimed for a finish starts only if it was.
 */
export async function finishAllIn(trx: Queryable, finishes: readonly FinishIn[]): Promise<void> {
  for (const [owner, group] of groupBy(finishes, (f) => f.owner))
    await completeJobs(
      trx,
      group.map((f) => f.jobId),
      owner,
      group[0]!.now(),
    );
  for (const [lane, group] of groupBy(finishes, (f) => f.lane)) if (lane) await lane.claimIn(trx, group);
}

function groupBy<T, K>(items: readonly T[], key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}
