/**
 * The server's log stream: lines are gathered for a moment (up to `delayMs`, or until `maxBytes` are waiting) and
 * handed to the file in one asynchronous write, instead of one write per line. Each write is a request to libuv's
 * thread pool, and on a busy machine every such request wakes a thread that then competes with the event loop; a
 * service answering thousands of requests a second writes as many lines. Nothing blocks: a slow reader (a full pipe)
 * only lets lines wait in memory. Lines still waiting when the process exits (also after an uncaught error) are written
 * on the way out, synchronously.
 */
import pino from 'pino';

/** A destination pino writes to, with a synchronous flush for the way out. */
export interface LogStream {
  write(line: string): boolean;
  flushSync(): void;
}

/** Gathers lines for `fd` and writes them together; see the module comment. */
export function batchedLogStream(fd: number, delayMs = 50, maxBytes = 64 * 1024): LogStream {
  const file = pino.destination({ dest: fd, sync: false });
  let pending: string[] = [];
  let size = 0;
  let timer: NodeJS.Timeout | undefined;
  const hand = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (pending.length === 0) return;
    const chunk = pending.join('');
    pending = [];
    size = 0;
    file.write(chunk);
  };
  const flushSync = () => {
    hand();
    try {
      file.flushSync();
    } catch {
      // A write still under way (or a closed descriptor) is finished or lost by the exit itself.
    }
  };
  process.once('exit', flushSync);
  return {
    write(line) {
      pending.push(line);
      size += line.length;
      if (size >= maxBytes) hand();
      else if (!timer) timer = setTimeout(hand, delayMs).unref();
      return true;
    },
    flushSync,
  };
}
