/**
 * Checkpoints of an SQLite database file, off the event loop. In WAL mode every commit appends to the write-ahead log,
 * and by default the commit that takes the log past 1,000 pages also copies the log into the database file, syncing
 * the log before and the file after: on better-sqlite3 that is the event loop's thread, held for the copy and two disk
 * syncs while requests wait. Here the connection's own checkpoints only come as a backstop (at ten times the default),
 * and a thread with a connection of its own copies the log instead, with passive checkpoints, which wait for no reader
 * or writer: the writer appends on while a checkpoint copies, and starts the log over at its next commit once a
 * checkpoint has copied it all and no reader still needs it.
 * Lifecycle: created with the connection; the thread starts the first time the log reaches the default's size (a
 * process that has written less since it opened the file runs none), then checkpoints each half second the log
 * changed, for as long as the connection is open; stopped before the connection closes. A thread that fails, ends
 * unasked or reports a failed checkpoint hands the checkpoints back to the connection at SQLite's default.
 */
import { stat } from 'node:fs/promises';
import type { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';
import { startThread } from '../threads/threads.ts';
import type { CheckpointReply, CheckpointRequest } from './checkpoint-thread.ts';

/** SQLite's default automatic checkpoint, in pages of the log. */
const DEFAULT_PAGES = 1000;
/**
 * The connection's own checkpoints while the thread runs: a backstop for a log the thread cannot keep up with (a burst
 * of writes faster than a checkpoint each half second copies, or an event loop too busy to reach its timers). Such a
 * checkpoint copies up to ten times what SQLite's default would, on the event loop.
 */
const BACKSTOP_PAGES = 10 * DEFAULT_PAGES;
const TICK_MS = 500;

/** The checkpoints of one database file. */
export interface Checkpoints {
  /** Whether the thread runs. */
  running(): boolean;
  /** How many checkpoints the thread has made. */
  made(): number;
  stop(): Promise<void>;
}

/** Takes over the checkpoints of `writer`, the connection that writes `file`. */
export function checkpointOffLoop(file: string, writer: SQLite.Database): Checkpoints {
  const walPath = `${file}-wal`;
  const startAt = DEFAULT_PAGES * Number(writer.pragma('page_size', { simple: true }));
  writer.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  let thread: Worker | undefined;
  // A tick is looking at the log, or a checkpoint has been asked for and not answered.
  let busy = false;
  let failed = false;
  let stopped = false;
  let made = 0;
  // What the log looked like when the last checkpoint was asked for; a log that changed since needs another.
  let seen = '';
  let pending = false;
  // A thread that failed, terminated: stop() waits for it to let go of its connection.
  let ending: Promise<unknown> | undefined;

  function handBack(): void {
    if (failed) return;
    failed = true;
    clearInterval(timer);
    const worker = thread;
    thread = undefined;
    if (!stopped && writer.open) writer.pragma(`wal_autocheckpoint = ${DEFAULT_PAGES}`);
    ending = worker?.terminate();
  }

  function start(): Worker {
    const worker = startThread('db/checkpoint-thread', { workerData: { file } });
    worker.on('message', (reply: CheckpointReply) => {
      busy = false;
      // A stopping checkpointer holds the thread until it ends.
      if (!stopped) worker.unref();
      // A checkpoint that failed (the disk, not a busy reader or writer) is not tried again from here.
      if ('error' in reply) return handBack();
      // -1: another connection's checkpoint held the lock (another process on the same file); try at the next tick.
      if (reply.frames < 0) return void (pending = true);
      made++;
      // Frames a reader still needed stay in the log: the next tick tries again.
      pending = reply.copied < reply.frames;
    });
    worker.on('error', handBack);
    worker.on('exit', () => stopped || handBack());
    worker.unref();
    return worker;
  }

  async function tick(): Promise<void> {
    if (busy || failed || stopped) return;
    busy = true;
    const log = await stat(walPath).catch(() => undefined);
    const now = log && `${log.size}/${log.mtimeMs}`;
    const wanted =
      log !== undefined && (now !== seen || pending) && (thread !== undefined || log.size >= startAt);
    if (!wanted || failed || stopped) {
      busy = false;
      return;
    }
    seen = now!;
    thread ??= start();
    // A checkpoint in hand keeps the process running, as pending I/O would.
    thread.ref();
    thread.postMessage('checkpoint' satisfies CheckpointRequest);
  }

  const timer = setInterval(() => void tick(), TICK_MS).unref();
  return {
    running: () => thread !== undefined,
    made: () => made,
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      const worker = thread;
      thread = undefined;
      if (!worker) return void (await ending);
      const ended = new Promise((resolve) => worker.once('exit', resolve));
      // Held until it ends: an unreferenced thread would not keep the process waiting for its exit.
      worker.ref();
      worker.postMessage('close' satisfies CheckpointRequest);
      await ended;
    },
  };
}
