/**
 * Group commit: concurrent units of work that each need their own transaction are run together in one transaction,
 * so a burst of requests costs one commit (one fsync) instead of one each. If the shared transaction fails, each unit
 * is run again alone, so one failing unit never fails the others.
 * Lifecycle: run() queues a unit; a batch transaction is started after the current turn of the event loop (so units
 * submitted in the same turn share it) and takes the queued units once it holds a connection. When it has run them,
 * the next batch may start while this one commits: units arriving meanwhile form it, and with SQLite it can commit
 * while the one before is still being flushed to disk (see sqlite-commit.ts). Two batches never run units at once.
 */
import type { Kysely, Transaction } from 'kysely';
import type { DB } from './types.ts';
import { UnflushedCommitError } from './sqlite-commit.ts';

/** A unit of work inside a transaction. */
export type Unit<T> = (trx: Transaction<DB>) => Promise<T>;

interface Pending {
  unit: Unit<unknown>;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

/** Runs units of work in shared transactions. */
export interface GroupCommitter {
  run<T>(unit: Unit<T>): Promise<T>;
}

/** Creates a group committer over a database; `maxBatch` bounds how many units share one transaction. */
export function createGroupCommitter(db: Kysely<DB>, maxBatch = 256): GroupCommitter {
  const queue: Pending[] = [];
  // A batch has been started and has not run its units yet.
  let forming = false;

  const runAlone = async (p: Pending): Promise<void> => {
    try {
      p.resolve(await db.transaction().execute((trx) => p.unit(trx)));
    } catch (err) {
      p.reject(err);
    }
  };

  const runBatch = async (): Promise<void> => {
    let batch: Pending[] | undefined;
    let results: unknown[];
    try {
      results = await db.transaction().execute(async (trx) => {
        batch = queue.splice(0, maxBatch);
        const out: unknown[] = [];
        try {
          for (const p of batch) out.push(await p.unit(trx));
        } finally {
          next();
        }
        return out;
      });
    } catch (err) {
      if (!batch) {
        // The transaction could not even begin: the units it would have taken fail with it.
        for (const p of queue.splice(0, maxBatch)) p.reject(err);
        return next();
      }
      // A commit that was written but not flushed must not run again: its units' rows may already be there.
      if (batch.length === 1 || err instanceof UnflushedCommitError) for (const p of batch) p.reject(err);
      else for (const p of batch) await runAlone(p);
      return;
    }
    batch!.forEach((p, i) => p.resolve(results[i]));
  };

  const schedule = (): void => {
    if (forming || queue.length === 0) return;
    forming = true;
    setImmediate(() => void runBatch());
  };

  // Once a batch has run its units, the next may start: it waits for the connection while this one commits.
  const next = (): void => {
    forming = false;
    schedule();
  };

  return {
    run<T>(unit: Unit<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ unit, resolve: resolve as (v: unknown) => void, reject });
        schedule();
      });
    },
  };
}
