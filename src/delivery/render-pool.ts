/**
 * Render threads: the copies a worker process delivers are rendered and DKIM-signed on worker threads, beside the
 * event loop that speaks SMTP and writes outcomes, so a busy lane uses a second core for its share of the CPU (about
 * a fifth of a delivery's; docs/decisions.md, "What a delivery costs the event loop"). With no threads configured,
 * copies render on the event loop, as the threads would render them (render.ts).
 * Lifecycle: one pool per worker process, shared by its lanes, each of which holds it open; threads start with the
 * first copy to render, so a process that delivers nothing starts none; a thread that dies fails the copies it had
 * (their deliveries are tried again) and is replaced at the next copy; the last lane to close stops them.
 * Replies that arrive together are handed on together, unless the pool is told the loop is contended (API requests
 * are coming in, loop-pacer.ts): then a few per turn of the event loop, so each turn carries only a few copies' next
 * steps and requests waiting for the loop get it between them.
 */
import type { Worker } from 'node:worker_threads';
import { startThread } from '../threads/threads.ts';
import { renderSigned, type RenderJob } from './render.ts';
import type { RenderReply, RenderRequest } from './render-thread.ts';

/** Renders copies; `close` when done with it. */
export interface Renderer {
  render(job: RenderJob): Promise<Buffer>;
  close(): Promise<void>;
}

/** A pool lanes share: each `open` gives a renderer, and the threads stop when every one is closed. */
export interface RenderPool {
  open(): Renderer;
  /** How many threads run now. */
  running(): number;
}

interface Pending {
  resolve: (raw: Buffer) => void;
  reject: (err: Error) => void;
}

interface Thread {
  worker: Worker;
  pending: Map<number, Pending>;
}

/** Replies handed on per turn of the event loop while the loop is contended. */
const REPLIES_PER_TURN = 2;

/** How the pool hands replies on: `contended` says whether to spread them over turns of the loop. */
export interface RenderPoolOptions {
  contended?: () => boolean;
}

/**
 * Takes the reply's copy out of the thread's hands at once (a thread that fails later no longer owns it) and returns
 * how to settle it.
 */
function settleFor(thread: Thread, reply: RenderReply): (() => void) | undefined {
  const p = thread.pending.get(reply.id);
  if (!p) return undefined;
  thread.pending.delete(reply.id);
  if (thread.pending.size === 0) thread.worker.unref();
  if ('error' in reply) return () => p.reject(new Error(reply.error));
  const raw = Buffer.from(reply.raw.buffer, reply.raw.byteOffset, reply.raw.byteLength);
  return () => p.resolve(raw);
}

/**
 * What the pool does with a thread's reply: settles its copy at once, or, while the loop is contended (or replies
 * still wait), queues it to be settled a few per turn of the event loop.
 */
function replyHandler(opts: RenderPoolOptions): (thread: Thread, reply: RenderReply) => void {
  const waiting: (() => void)[] = [];
  let draining = false;

  function drain(): void {
    for (const settle of waiting.splice(0, REPLIES_PER_TURN)) settle();
    if (waiting.length > 0) setImmediate(drain);
    else draining = false;
  }

  return (thread, reply) => {
    const settle = settleFor(thread, reply);
    if (!settle) return;
    if (!draining && !opts.contended?.()) return settle();
    waiting.push(settle);
    if (!draining) {
      draining = true;
      setImmediate(drain);
    }
  };
}

/** A pool of `threads` render threads; 0 renders on the event loop. */
export function createRenderPool(threads: number, opts: RenderPoolOptions = {}): RenderPool {
  const live: Thread[] = [];
  let users = 0;
  let nextId = 1;
  const received = replyHandler(opts);

  function start(): Thread {
    const thread: Thread = { worker: startThread('delivery/render-thread'), pending: new Map() };
    const fail = (err: Error) => {
      const at = live.indexOf(thread);
      if (at >= 0) live.splice(at, 1);
      for (const p of thread.pending.values()) p.reject(err);
      thread.pending.clear();
    };
    thread.worker.on('message', (reply: RenderReply) => received(thread, reply));
    thread.worker.on('error', (err) => fail(new Error(`render thread failed: ${err.message}`)));
    thread.worker.on('exit', (code) => fail(new Error(`render thread stopped (exit code ${code})`)));
    thread.worker.unref();
    live.push(thread);
    return thread;
  }

  /** The thread with the fewest copies in hand, or a new one while fewer than `threads` run. */
  function pick(): Thread {
    let best: Thread | undefined;
    for (const t of live) if (!best || t.pending.size < best.pending.size) best = t;
    return best && (best.pending.size === 0 || live.length >= threads) ? best : start();
  }

  function render(job: RenderJob): Promise<Buffer> {
    if (threads === 0) return renderSigned(job);
    const thread = pick();
    const id = nextId++;
    return new Promise<Buffer>((resolve, reject) => {
      // A thread with copies in hand keeps the process running, as any pending I/O would; an idle one does not.
      if (thread.pending.size === 0) thread.worker.ref();
      thread.pending.set(id, { resolve, reject });
      thread.worker.postMessage({ id, job } satisfies RenderRequest);
    });
  }

  async function stop(): Promise<void> {
    const stopping = live.splice(0).map(async (t) => {
      await t.worker.terminate();
      for (const p of t.pending.values()) p.reject(new Error('render threads stopped'));
    });
    await Promise.all(stopping);
  }

  return {
    running: () => live.length,
    open() {
      users++;
      let closed = false;
      return {
        render,
        async close() {
          if (closed) return;
          closed = true;
          if (--users === 0) await stop();
        },
      };
    },
  };
}
