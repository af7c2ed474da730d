/**
 * How a handler's work row ends inside the transaction that records its work: the handler's own (FinishIn called),
 * or a write that records the work of many handlers at once (finishAllIn).
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
}

/**
 * Ends the rows of `finishes` in `trx` with one statement per worker instead of one per row. The caller calls
 * `ended()` of each once `trx` has committed.
 */
export async function finishAllIn(trx: Queryable, finishes: readonly FinishIn[]): Promise<void> {
  for (const [owner, group] of groupBy(finishes, (f) => f.owner))
    await completeJobs(
      trx,
      group.map((f) => f.jobId),
      owner,
      group[0]!.now(),
    );
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
