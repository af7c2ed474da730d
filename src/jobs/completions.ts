/**
 * Settles finished work rows in batches. Every handler that finishes asks for its row to be marked done; the rows
 * that finish while one write is in flight wait and are marked together by the next, so a lane delivering hundreds of
 * messages a second writes `jobs` a few times a second instead of once per message (group commit). The write does
 * not wait for the disk (Database.unsynced): a completion lost in a machine crash only runs its row again.
 * Lifecycle: one per worker; done(id) per finished row; flush() when the worker stops.
 */
import type { Database } from '../db/connect.ts';
import { completeJobs } from './jobs.repository.ts';

/** Rows per statement, under both dialects' limits on bound parameters. */
const MAX_BATCH = 500;

interface Waiter {
  id: number;
  resolve(): void;
  reject(err: unknown): void;
}

/** Marks rows done in batches. */
export interface Completions {
  /** Resolves once the row `id` is marked done (or was no longer this worker's); rejects when the write failed. */
  done(id: number): Promise<void>;
  /** Resolves once every row asked for so far is written. */
  flush(): Promise<void>;
}

/** Creates the batcher of one worker (`owner` is the lease owner of its rows). */
export function createCompletions(
  database: Pick<Database, 'unsynced'>,
  owner: string,
  now: () => number,
): Completions {
  let pending: Waiter[] = [];
  let writing: Promise<void> | undefined;

  async function writeAll(): Promise<void> {
    while (pending.length > 0) {
      const batch = pending.slice(0, MAX_BATCH);
      pending = pending.slice(batch.length);
      try {
        await database.unsynced((db) =>
          completeJobs(
            db,
            batch.map((w) => w.id),
            owner,
            now(),
          ),
        );
        for (const w of batch) w.resolve();
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
  }

  /** Starts a write unless one runs; the running one picks up whatever arrives before it ends. */
  function schedule(): void {
    if (writing) return;
    writing = new Promise<void>((r) => setImmediate(r)).then(writeAll).finally(() => {
      writing = undefined;
      if (pending.length > 0) schedule();
    });
  }

  return {
    done: (id) =>
      new Promise<void>((resolve, reject) => {
        pending.push({ id, resolve, reject });
        schedule();
      }),
    flush: async () => {
      while (writing) await writing;
    },
  };
}
