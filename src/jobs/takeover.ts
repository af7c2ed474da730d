/**
 * Takeover of a dead worker's rows: every worker run keeps a heartbeat row in `worker_nodes`, renewed at a third of the
 * takeover limit. At each beat it also looks for workers whose last beat is older than the limit (killed, or cut off
 * from the database): their running rows' leases end at once, so the next claim of any live worker runs them, and
 * their heartbeat rows go. A row that was in flight when its worker died runs again (a message may go out twice, with
 * the same Message-ID); nothing else does.
 * Lifecycle: start() beats at once and then on a timer; stop() stops beating and leaves the row, so rows a stopped
 * worker could not finish are taken over once the limit passes.
 */
import type { Logger } from 'pino';
import type { Database } from '../db/connect.ts';
import { expireLeases } from './jobs.repository.ts';
import { beat, forgetWorkers, silentWorkers } from './nodes.repository.ts';

/** What the heartbeat of one worker needs. */
export interface HeartbeatOptions {
  database: Database;
  log: Logger;
  owner: string;
  node: string;
  /** A worker silent for longer than this is taken for dead (SEALPOST_NODE_TAKEOVER_MS). */
  takeoverMs: number;
  now: () => number;
  /** Called after rows of a dead worker became claimable, so idle loops claim them now. */
  onTakeover: () => void;
}

/** A worker's heartbeat. */
export interface Heartbeat {
  start(): void;
  stop(): Promise<void>;
}

/** Beats once and takes over the rows of silent workers; returns how many rows became claimable. */
export async function beatAndTakeOver(opts: Omit<HeartbeatOptions, 'onTakeover'>): Promise<number> {
  const { db } = opts.database;
  const now = opts.now();
  await opts.database.unsynced((w) => beat(w, opts.owner, opts.node, now));
  const before = now - opts.takeoverMs;
  const dead = (await silentWorkers(db, before)).filter((o) => o !== opts.owner);
  if (dead.length === 0) return 0;
  // Two writes, not one transaction: should the second fail, the next beat finds the same workers and repeats both.
  const rows = await opts.database.unsynced((w) => expireLeases(w, dead, now));
  await opts.database.unsynced((w) => forgetWorkers(w, dead, before));
  opts.log.warn(
    { workers: dead, rows, takeoverMs: opts.takeoverMs },
    'took over the work rows of workers whose heartbeat stopped',
  );
  return rows;
}

/** Creates the heartbeat of a worker. */
export function createHeartbeat(opts: HeartbeatOptions): Heartbeat {
  let timer: NodeJS.Timeout | undefined;
  let inflight: Promise<void> = Promise.resolve();
  let stopped = false;
  const tick = () => {
    inflight = beatAndTakeOver(opts)
      .then((rows) => {
        if (rows > 0) opts.onTakeover();
      })
      .catch((err: unknown) => opts.log.warn({ err }, 'worker heartbeat failed; retrying at the next beat'))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, Math.max(100, Math.floor(opts.takeoverMs / 3)));
      });
  };
  return {
    start: () => tick(),
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await inflight;
    },
  };
}
