/**
 * The worker engine: for each registered queue, a loop that claims due rows with a lease, runs the queue's handler on
 * each, and finishes the row (done, retry on the queue's schedule, or failed). Each queue has its own loop and its
 * own concurrency, so one lane (transactional mail) never waits behind another (campaigns). Rows that finish together
 * are marked done together, in one write (completions.ts), or in the write that records their work (finish.ts).
 * Lifecycle: start() begins polling; nudge(queue) wakes a loop early after an enqueue; stop() stops claiming, waits for
 * running handlers up to a deadline, and leaves anything unfinished to lease expiry.
 */
import { randomUUID } from 'node:crypto';
import { leaseOwner, reclaimNodeLeases } from './reclaim.ts';
import { createHeartbeat } from './takeover.ts';
import type { Logger } from 'pino';
import type { LoopPacer } from './loop-pacer.ts';
import type { Database } from '../db/connect.ts';
import type { Queryable } from '../db/types.ts';
import { claimJobs, completeJobs, extendLease, failJob, type JobRow } from './jobs.repository.ts';
import type { FinishIn } from './finish.ts';
import { createCompletions, type Completions } from './completions.ts';
import { DEFAULT_RETRY_SCHEDULE_MS, PermanentJobError, nextRetryAt } from './retry.ts';

/**
 * Yields the event loop between the steps of a long work row: one turn for waiting requests, then, when the API shares
 * the process, a wait of at most `maxWaitMs` while the loop lags (see loop-pacer.ts).
 */
export type Pace = (maxWaitMs?: number) => Promise<void>;

/** A handler for one queue's rows. Throw to retry; throw PermanentJobError to fail at once. */
export type JobHandler = (job: JobRow & { data: unknown }, pace: Pace, finishIn: FinishIn) => Promise<void>;

/** A busy lane claims once a quarter of its slots (at least one) is free. */
const CLAIM_BATCH_DIVISOR = 4;

const yieldTurn: Pace = () => new Promise((resolve) => setImmediate(resolve));

/** How one queue is worked. */
export interface QueueSpec {
  handler: JobHandler;
  /** Rows of this queue run at once in this process. */
  concurrency?: number;
  /**
   * Rows run at once while API requests share the loop (the pacer's `contended()`), when fewer than `concurrency`: a
   * lane that fills idle cores with many rows in flight holds fewer while requests wait for the same loop.
   */
  contendedConcurrency?: number;
  /** Delays between attempts; the row fails after the last. */
  retrySchedule?: readonly number[];
  /** Fraction of each delay added at random (0..1). */
  jitter?: number;
  leaseMs?: number;
  /** Runs once a row fails for good (its last attempt, or a permanent error), so the queue's owner can settle what it tracks. */
  onFailed?: (job: JobRow & { data: unknown }, error: string) => Promise<void>;
}

/** Options of a worker process. */
export interface WorkerOptions {
  database: Database;
  log: Logger;
  queues: Record<string, QueueSpec>;
  pollMs: number;
  leaseMs: number;
  /** A name for this worker in lease_owner; `<node>:<pid>:<run>` by default. */
  owner?: string;
  /** The node this worker runs on (SEALPOST_NODE_NAME); at start it reclaims rows dead runs of the node still lease. */
  node?: string;
  /**
   * With `node`: milliseconds after which a worker whose heartbeat stopped is taken for dead and its leased rows are
   * taken over (takeover.ts). Unset: no heartbeat; rows of a dead worker wait for their lease to expire.
   */
  takeoverMs?: number;
  /** When the API shares this process: consulted before each work row, so background work yields to requests. */
  pacer?: LoopPacer;
  now?: () => number;
}

/** A running worker. */
export interface Worker {
  readonly owner: string;
  start(): void;
  /** Wakes the loop of `queue` now instead of at its next poll. */
  nudge(queue: string): void;
  /** Stops claiming and waits up to `timeoutMs` for running handlers. */
  stop(timeoutMs?: number): Promise<void>;
}

/** Creates a worker for the given queues. */
export function createWorker(opts: WorkerOptions): Worker {
  const owner = opts.owner ?? (opts.node ? leaseOwner(opts.node) : `worker-${randomUUID()}`);
  const now = opts.now ?? Date.now;
  const completions = createCompletions(opts.database, owner, now);
  const loops = new Map(
    Object.entries(opts.queues).map(([name, spec]) => [
      name,
      new QueueLoop(name, spec, opts, owner, now, completions),
    ]),
  );
  const reclaim = async () => {
    if (opts.node)
      await reclaimNodeLeases(opts.database.db, opts.node, owner, opts.log, now()).catch((err: unknown) =>
        opts.log.warn({ err }, 'reclaiming the leases of an earlier run failed; they expire on their own'),
      );
  };
  const wakeAll = () => loops.forEach((l) => l.wake());
  const heartbeat =
    opts.node && opts.takeoverMs
      ? createHeartbeat({
          ...opts,
          node: opts.node,
          takeoverMs: opts.takeoverMs,
          owner,
          now,
          onTakeover: wakeAll,
        })
      : undefined;
  return {
    owner,
    start: () => {
      void reclaim().then(wakeAll);
      heartbeat?.start();
      loops.forEach((l) => l.start());
    },
    nudge: (queue) => loops.get(queue)?.wake(),
    stop: async (timeoutMs = 15_000) => {
      await Promise.all([...loops.values()].map((l) => l.stop(timeoutMs)));
      await heartbeat?.stop();
      await completions.flush();
    },
  };
}

class QueueLoop {
  private running = new Set<Promise<void>>();
  private stopping = false;
  private timer: NodeJS.Timeout | undefined;
  private wakeUp: (() => void) | undefined;
  private woken = false;
  private loopDone: Promise<void> | undefined;
  private readonly concurrency: number;
  private readonly contendedConcurrency: number;
  private readonly leaseMs: number;

  constructor(
    private readonly queue: string,
    private readonly spec: QueueSpec,
    private readonly opts: WorkerOptions,
    private readonly owner: string,
    private readonly now: () => number,
    private readonly completions: Completions,
  ) {
    this.concurrency = spec.concurrency ?? 4;
    this.contendedConcurrency = Math.max(
      1,
      Math.min(spec.contendedConcurrency ?? this.concurrency, this.concurrency),
    );
    this.leaseMs = spec.leaseMs ?? opts.leaseMs;
  }

  start(): void {
    this.loopDone ??= this.loop();
  }

  wake(): void {
    if (this.wakeUp) this.wakeUp();
    else this.woken = true;
  }

  async stop(timeoutMs: number): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.loopDone;
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(this.running), new Promise((r) => (timeout = setTimeout(r, timeoutMs)))]);
    clearTimeout(timeout);
  }

  /** Slots of the lane now: fewer while API requests share the loop. */
  private limit(): number {
    return this.opts.pacer?.contended() ? this.contendedConcurrency : this.concurrency;
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      const limit = this.limit();
      const claimBatch = Math.ceil(limit / CLAIM_BATCH_DIVISOR);
      const free = limit - this.running.size;
      let claimed: JobRow[] = [];
      // While handlers run, a claim waits until a batch of slots is free: each claim is a write, and a busy lane would
      // otherwise claim one row each time one finishes.
      if (free > 0 && (free >= claimBatch || this.running.size === 0)) {
        try {
          const { database } = this.opts;
          claimed = await database.unsynced((db) =>
            claimJobs(db, database.dialect, {
              queue: this.queue,
              owner: this.owner,
              leaseMs: this.leaseMs,
              limit: free,
              now: this.now(),
            }),
          );
        } catch (err) {
          this.opts.log.error({ err, queue: this.queue }, 'claiming work rows failed');
        }
      }
      for (const job of claimed) this.track(this.run(job));
      if (claimed.length === 0 || limit - this.running.size < claimBatch) await this.idle();
    }
  }

  /** Sleeps until the poll interval passes, a slot frees up, or someone nudges. */
  private idle(): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.wakeUp = () => {
        clearTimeout(this.timer);
        this.wakeUp = undefined;
        resolve();
      };
      this.timer = setTimeout(this.wakeUp, this.opts.pollMs);
    });
  }

  private track(p: Promise<void>): void {
    this.running.add(p);
    void p.finally(() => {
      this.running.delete(p);
      this.wake();
    });
  }

  private async run(job: JobRow): Promise<void> {
    const { database } = this.opts;
    // Renew at a third of the lease so two renewals can be late before it lapses. No floor above that: a lapsed lease
    // lets the row be claimed again (even by this worker) and run a second time while the first run goes on.
    const heartbeat = setInterval(
      () => {
        database
          .unsynced((db) => extendLease(db, job.id, this.owner, this.now() + this.leaseMs))
          .catch((err) => this.opts.log.warn({ err, job: job.id }, 'lease extension failed'));
      },
      Math.max(10, Math.floor(this.leaseMs / 3)),
    );
    try {
      const pacer = this.opts.pacer;
      if (pacer) await pacer.pace();
      const pace: Pace = pacer ? (maxWaitMs) => pacer.pace(maxWaitMs) : yieldTurn;
      let finished = false;
      const finishIn: FinishIn = Object.assign(
        async (trx: Queryable) => {
          await completeJobs(trx, [job.id], this.owner, this.now());
          finishIn.ended();
        },
        {
          jobId: job.id,
          owner: this.owner,
          now: this.now,
          ended: () => {
            finished = true;
          },
        },
      );
      await this.spec.handler({ ...job, data: JSON.parse(job.payload) }, pace, finishIn);
      // A handler that returned after finishing its row in its transaction saw that transaction commit.
      if (!finished) await this.completions.done(job.id);
    } catch (err) {
      await this.fail(job, err).catch((e) =>
        this.opts.log.error({ err: e, job: job.id }, 'recording a failed work row failed'),
      );
    } finally {
      clearInterval(heartbeat);
    }
  }

  private async fail(job: JobRow, err: unknown): Promise<void> {
    const t = this.now();
    const retryAt =
      err instanceof PermanentJobError
        ? null
        : nextRetryAt(
            this.spec.retrySchedule ?? DEFAULT_RETRY_SCHEDULE_MS,
            job.attempts,
            t,
            this.spec.jitter ?? 0,
          );
    const message = err instanceof Error ? err.message : String(err);
    this.opts.log.warn(
      {
        queue: this.queue,
        job: job.id,
        attempts: job.attempts,
        retryAt,
        err: message,
      },
      retryAt ? 'work row will be retried' : 'work row failed',
    );
    const recorded = await this.opts.database.unsynced((db) =>
      failJob(db, job.id, this.owner, message.slice(0, 2000), retryAt, t),
    );
    if (retryAt === null && recorded && this.spec.onFailed)
      await this.spec.onFailed({ ...job, data: JSON.parse(job.payload) }, message);
  }
}
