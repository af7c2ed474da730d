/**
 * Group commit: concurrent units of work that each need their own transaction are run together in one transaction,
 * so a burst of requests costs one commit (one fsync) instead of one each (or one statement: see Single statements).
 * If the shared transaction fails, each unit is run again alone, so one failing unit never fails the others.
 * Lifecycle: run() queues a unit; a batch transaction is started after the current turn of the event loop (so units
 * submitted in the same turn share it) and takes the queued units once it holds a connection. When it has run them,
 * the next batch may start while this one commits: units arriving meanwhile form it, and with SQLite it can commit
 * while the one before is still being flushed to disk (see sqlite-commit.ts). With `parallel` above 1 (PostgreSQL,
 * whose transactions run side by side on a pool), the next batch may also start as soon as this one has taken its
 * units, up to that many batches running units at once; otherwise two batches never run units at once.
 * Merged work: units of one kind that write the same tables (accepted messages) can be handed in as items of a
 * Merger; a batch gives all its items of one merger to a single call, which writes them with multi-row statements
 * (one round trip per table instead of one per row). Run again alone, an item is written by a call of its own.
 * Single statements: on a database whose data-modifying WITH statements are atomic on their own (PostgreSQL, option
 * `statements`), the items of mergers offering `statement` wait in a queue of their own, so their batches hold nothing
 * else (in a process that also delivers, delivery outcomes share the committer); the next batch takes from the queue
 * whose first unit has waited longer. A batch of one such merger's items is written by its statement, on a connection
 * of the pool with no BEGIN and COMMIT around it: one round trip for the whole batch. If the statement declines the
 * items, they run in a transaction; if it fails, each item is written again alone, in a transaction.
 */
import type { Kysely, Transaction } from 'kysely';
import type { DB } from './types.ts';
import { UnflushedCommitError } from './sqlite-commit.ts';

/** A unit of work inside a transaction. */
export type Unit<T> = (trx: Transaction<DB>) => Promise<T>;

/** Writes many items of one kind in a transaction, returning one result per item in their order. */
export interface Merger<I, R> {
  write(trx: Transaction<DB>, items: I[]): Promise<R[]>;
  /**
   * Writes the items with one statement that is atomic without a transaction, or returns undefined for items it
   * cannot write so (then `write` runs in a transaction). Only called by a committer with `statements`.
   */
  statement?(db: Kysely<DB>, items: I[]): Promise<R[]> | undefined;
}

interface Pending {
  /** The order units came in, across queues. */
  seq: number;
  unit?: Unit<unknown>;
  merger?: Merger<unknown, unknown>;
  item?: unknown;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

/** Runs units of work in shared transactions. */
export interface GroupCommitter {
  run<T>(unit: Unit<T>): Promise<T>;
  /** Writes `item` with `merger`, together with the other items of the same merger in the batch. */
  merge<I, R>(merger: Merger<I, R>, item: I): Promise<R>;
}

/** How a group committer batches. */
export interface GroupCommitOptions {
  /** How many units share one transaction at most. */
  maxBatch?: number;
  /** How many batches may run their units at once (each on its own connection). */
  parallel?: number;
  /** The database runs a statement atomically outside a transaction, so mergers' `statement` may be used. */
  statements?: boolean;
}

/** The one statement that writes a batch, when every pending item belongs to one merger that offers it. */
function asStatement(db: Kysely<DB>, batch: Pending[]): Promise<unknown[]> | undefined {
  const merger = batch[0]?.merger;
  if (!merger?.statement || batch.some((p) => p.merger !== merger)) return undefined;
  return merger.statement(
    db,
    batch.map((p) => p.item),
  );
}

/** Runs the pending units of a batch in order; the items of each merger are written at the first one's place. */
async function runUnits(trx: Transaction<DB>, batch: Pending[]): Promise<unknown[]> {
  const out: unknown[] = new Array(batch.length);
  const groups = new Map<Merger<unknown, unknown>, number[]>();
  batch.forEach((p, i) => {
    if (!p.merger) return;
    const group = groups.get(p.merger);
    if (group) group.push(i);
    else groups.set(p.merger, [i]);
  });
  for (const [i, p] of batch.entries()) {
    if (p.unit) {
      out[i] = await p.unit(trx);
      continue;
    }
    const group = groups.get(p.merger!);
    if (!group || group[0] !== i) continue;
    const results = await p.merger!.write(
      trx,
      group.map((j) => batch[j]!.item),
    );
    group.forEach((j, k) => (out[j] = results[k]));
  }
  return out;
}

/** A committer's settings, its queues and the state of its batches. */
interface State {
  db: Kysely<DB>;
  maxBatch: number;
  parallel: number;
  statements: boolean;
  queue: Pending[];
  /** With `statements`: the items of mergers that offer a statement, batched apart from everything else. */
  statementQueue: Pending[];
  seq: number;
  /** A batch has been started and has not taken its units yet. */
  forming: boolean;
  /** Batches that have taken their units and not run them all yet. */
  running: number;
}

/** Creates a group committer over a database. */
export function createGroupCommitter(db: Kysely<DB>, opts: GroupCommitOptions = {}): GroupCommitter {
  const s: State = {
    db,
    maxBatch: opts.maxBatch ?? 256,
    parallel: opts.parallel ?? 1,
    statements: opts.statements ?? false,
    queue: [],
    statementQueue: [],
    seq: 0,
    forming: false,
    running: 0,
  };

  const enqueue = (p: Omit<Pending, 'seq' | 'resolve' | 'reject'>) =>
    new Promise<unknown>((resolve, reject) => {
      (s.statements && p.merger?.statement ? s.statementQueue : s.queue).push({
        ...p,
        seq: s.seq++,
        resolve,
        reject,
      });
      schedule(s);
    });

  return {
    run: <T>(unit: Unit<T>) => enqueue({ unit }) as Promise<T>,
    merge: <I, R>(merger: Merger<I, R>, item: I) =>
      enqueue({ merger: merger as Merger<unknown, unknown>, item }) as Promise<R>,
  };
}

/** The queue the next batch takes from: the one whose first unit has waited longer. */
function nextQueue(s: State): Pending[] {
  return s.statementQueue.length > 0 && (s.queue.length === 0 || s.statementQueue[0]!.seq < s.queue[0]!.seq)
    ? s.statementQueue
    : s.queue;
}

/** A batch forms when units wait, none is forming, and fewer than `parallel` batches are running their units. */
function schedule(s: State): void {
  if (s.forming || s.queue.length + s.statementQueue.length === 0 || s.running >= s.parallel) return;
  s.forming = true;
  setImmediate(() => void runBatch(s));
}

/** Runs one unit in a transaction of its own, settling its promise. */
async function runAlone(db: Kysely<DB>, p: Pending): Promise<void> {
  try {
    p.resolve(await db.transaction().execute(async (trx) => (await runUnits(trx, [p]))[0]));
  } catch (err) {
    p.reject(err);
  }
}

/** Runs one batch: takes the waiting units once it holds a connection, runs them, commits and settles them. */
async function runBatch(s: State): Promise<void> {
  let batch: Pending[] | undefined;
  let stated = false;
  let results: unknown[];
  // Takes the waiting units once a connection is held; `release` frees the batch's place once its units have run
  // (before the commit, so the next batch may form meanwhile), at the latest when the batch has ended.
  let released = false;
  const take = (): Pending[] => {
    batch = nextQueue(s).splice(0, s.maxBatch);
    s.forming = false;
    s.running++;
    schedule(s);
    return batch;
  };
  const release = () => {
    if (!batch || released) return;
    released = true;
    s.running--;
    schedule(s);
  };
  const inTransaction = async (trx: Transaction<DB>, units: Pending[]) => {
    try {
      return await runUnits(trx, units);
    } finally {
      release();
    }
  };
  try {
    results = s.statements
      ? await s.db.connection().execute((conn) => {
          const units = take();
          const statement = asStatement(conn, units);
          stated = statement !== undefined;
          return statement ?? conn.transaction().execute((trx) => inTransaction(trx, units));
        })
      : await s.db.transaction().execute((trx) => inTransaction(trx, take()));
  } catch (err) {
    release();
    return settleFailed(s, batch, stated, err);
  }
  release();
  batch!.forEach((p, i) => p.resolve(results[i]));
}

/** After a batch failed: rejects or runs again alone the units it took, or fails those it would have taken. */
async function settleFailed(
  s: State,
  batch: Pending[] | undefined,
  stated: boolean,
  err: unknown,
): Promise<void> {
  if (!batch) {
    // No connection, or the transaction could not even begin: the units it would have taken fail with it.
    for (const p of nextQueue(s).splice(0, s.maxBatch)) p.reject(err);
    s.forming = false;
    return schedule(s);
  }
  // A commit that was written but not flushed must not run again: its units' rows may already be there. A failed
  // statement wrote nothing, and may fail where the transaction does not (its rows travel as JSON): each unit is
  // written again alone, in a transaction.
  if (!stated && (batch.length === 1 || err instanceof UnflushedCommitError))
    for (const p of batch) p.reject(err);
  else for (const p of batch) await runAlone(s.db, p);
}
