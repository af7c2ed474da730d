/**
 * Group commit: concurrent units of work that each need their own transaction are run together in one transaction,
 * so a burst of requests costs one commit (one fsync) instead of one each. If the shared transaction fails, each unit
 * is run again alone, so one failing unit never fails the others.
 * Lifecycle: run() queues a unit; the first unit of an idle committer starts a batch after the current turn of the event
 * loop (so units submitted in the same turn share it), and units arriving while a batch commits form the next batch.
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
  let queue: Pending[] = [];
  let busy = false;

  const runAlone = async (p: Pending): Promise<void> => {
    try {
      p.resolve(await db.transaction().execute((trx) => p.unit(trx)));
    } catch (err) {
      p.reject(err);
    }
  };

  const runBatch = async (batch: Pending[]): Promise<void> => {
    if (batch.length === 1) return runAlone(batch[0]!);
    let results: unknown[];
    try {
      results = await db.transaction().execute(async (trx) => {
        const out: unknown[] = [];
        for (const p of batch) out.push(await p.unit(trx));
        return out;
      });
    } catch (err) {
      // A commit that was written but not flushed must not run again: its units' rows may already be there.
      if (err instanceof UnflushedCommitError) for (const p of batch) p.reject(err);
      else for (const p of batch) await runAlone(p);
      return;
    }
    batch.forEach((p, i) => p.resolve(results[i]));
  };

  const drain = async (): Promise<void> => {
    while (queue.length > 0) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(batch.length);
      await runBatch(batch);
    }
    busy = false;
  };

  return {
    run<T>(unit: Unit<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ unit, resolve: resolve as (v: unknown) => void, reject });
        if (!busy) {
          busy = true;
          setImmediate(() => void drain());
        }
      });
    },
  };
}
