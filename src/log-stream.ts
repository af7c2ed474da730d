/**
 * The server's log stream: lines are gathered for a moment (up to `delayMs`, or until `maxBytes` are waiting) and
 * handed to the file in one asynchronous write, instead of one write per line. Each write is a request to libuv's
 * thread pool, and on a busy machine every such request wakes a thread that then competes with the event loop; a
 * service answering thousands of requests a second writes as many lines. Nothing blocks while the process runs: a
 * slow reader (a full pipe) only lets lines wait in memory. Lines still waiting when the process exits (also after an
 * uncaught error) are written synchronously on the way out; a process killed outright loses them.
 * Lifecycle: one stream per process for its standard output, open until the process ends; a stream over a file of its
 * own is closed with `close`, which closes the file too.
 */
import { writeSync } from 'node:fs';
import pino from 'pino';

/** A destination pino writes to. */
export interface LogStream {
  write(line: string): boolean;
  /** Hands the waiting lines to the file (to be written without blocking), then calls `done`. */
  flush(done?: (err?: Error) => void): void;
  /** Writes every waiting line before returning, as on the way out. */
  flushSync(): void;
  /** Writes what is waiting and closes the file (not standard output or error); for a stream over a file it opened. */
  close(): Promise<void>;
}

/** How long a synchronous write waits for a full pipe before trying again, and how often it tries. */
const BUSY_WAIT_MS = 10;
const BUSY_TRIES = 500;

/** Gathers lines for `fd` and writes them together; see the module comment. */
export function batchedLogStream(fd: number, delayMs = 50, maxBytes = 64 * 1024): LogStream {
  // pino's own stream: it writes without blocking, and stops writing (instead of failing) once the reader is gone.
  const file = pino.destination({ dest: fd, sync: false });
  let pending: string[] = [];
  let size = 0;
  let timer: NodeJS.Timeout | undefined;
  let closing: Promise<void> | undefined;
  const take = (): string => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const chunk = pending.join('');
    pending = [];
    size = 0;
    return chunk;
  };
  const hand = () => {
    const chunk = take();
    if (!chunk) return;
    try {
      file.write(chunk);
    } catch {
      // pino ends its stream itself once the event loop has run dry; what comes after is written at once.
      writeOrDrop(fd, chunk);
    }
  };
  const flushSync = () => {
    const chunk = take();
    writeOrDrop(fd, '', () => file.flushSync());
    writeOrDrop(fd, chunk);
  };
  process.once('exit', flushSync);
  return {
    write(line) {
      if (closing) return false;
      pending.push(line);
      size += line.length;
      if (size >= maxBytes) hand();
      else if (!timer) timer = setTimeout(hand, delayMs).unref();
      return true;
    },
    flush(done) {
      hand();
      file.flush((err) => done?.(err ?? undefined));
    },
    flushSync,
    close() {
      closing ??= new Promise((resolve) => {
        process.removeListener('exit', flushSync);
        hand();
        file.once('close', () => resolve());
        file.end();
      });
      return closing;
    },
  };
}

/** Writes `text` (after `first`) now; when the file is gone (a closed pipe or descriptor) there is nowhere to write. */
function writeOrDrop(fd: number, text: string, first?: () => void): void {
  try {
    first?.();
    writeAllSync(fd, text);
  } catch {
    // Nothing left to write the log to.
  }
}

/** Writes all of `text` to `fd` now, waiting out a full non-blocking pipe. */
function writeAllSync(fd: number, text: string): void {
  let rest = Buffer.from(text);
  for (let busy = 0; rest.length > 0;) {
    try {
      rest = rest.subarray(writeSync(fd, rest));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN' || ++busy > BUSY_TRIES) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, BUSY_WAIT_MS);
    }
  }
}
