/**
 * Throttling of failed authentication, shared by API keys over HTTP and SMTP AUTH. Failures are counted per client
 * address and per presented key prefix (the first characters of the key, which a guesser cycling addresses keeps):
 * past a quarter of the allowed failures each further failure is answered after a growing delay, and at the limit
 * failures from that address or on that prefix are refused (429, SMTP 421) until the window ends. A valid key is never
 * refused here, whoever else failed from its address: it is bounded by its own rate limit. Counted in process memory,
 * like the public form limit; each failure is counted in `sealpost_auth_failures_total`, and throttling is logged once
 * per address or prefix and window.
 */
import { Counter } from 'prom-client';
import type { Logger } from 'pino';

/** The window over which failures are counted. */
export const AUTH_WINDOW_MS = 10 * 60_000;
const MAX_DELAY_MS = 2000;
const MAX_TRACKED = 50_000;
/** Characters of a presented key counted as its prefix (`sp_` and seven more, as the console shows it). */
const PREFIX_CHARS = 10;

/** The door an authentication came through. */
export type AuthDoor = 'http' | 'smtp';

/** The failed-authentication throttle of one process. */
export interface AuthThrottle {
  /**
   * Records a failure from `address` presenting `key` (the value as sent, of which only the prefix is kept); resolves,
   * after the delay this failure earns, to the milliseconds until failures from there are answered normally again:
   * more than 0 means the failure is to be refused as throttled.
   */
  failed(address: string, key: string, door: AuthDoor): Promise<number>;
  /** The failure counter, for a metrics registry. */
  readonly metric: Counter<'door'>;
}

interface Window {
  start: number;
  failures: number;
  logged: boolean;
}

/** Creates the throttle: `limit` failures per address, and per key prefix, per window (0 turns it off). */
export function createAuthThrottle(limit: number, log: Logger, now: () => number = Date.now): AuthThrottle {
  const windows = new Map<string, Window>();
  const metric = new Counter({
    name: 'sealpost_auth_failures_total',
    help: 'Failed authentications (API keys, SMTP AUTH) by door',
    labelNames: ['door'] as const,
    registers: [],
  });

  function open(name: string): Window {
    const existing = windows.get(name);
    if (existing && now() - existing.start < AUTH_WINDOW_MS) return existing;
    windows.delete(name);
    if (windows.size >= MAX_TRACKED)
      for (const [k, v] of windows) if (now() - v.start >= AUTH_WINDOW_MS) windows.delete(k);
    const w = { start: now(), failures: 0, logged: false };
    windows.set(name, w);
    return w;
  }

  /** Counts one failure in a window; the window when it is at the limit. */
  function count(name: string, fields: Record<string, unknown>): Window | undefined {
    const w = open(name);
    w.failures++;
    if (w.failures <= limit) return undefined;
    if (!w.logged) {
      w.logged = true;
      log.warn(
        { ...fields, failures: w.failures, windowMinutes: AUTH_WINDOW_MS / 60_000 },
        'authentication throttled for a client address or key prefix',
      );
    }
    return w;
  }

  return {
    metric,
    async failed(address, key, door) {
      metric.inc({ door });
      if (limit === 0) return 0;
      const prefix = key.slice(0, PREFIX_CHARS);
      const byAddress = count(`address:${address}`, { door, client: address });
      const byPrefix = count(`prefix:${prefix}`, { door, client: address, prefix });
      const failures = Math.max(
        windows.get(`address:${address}`)!.failures,
        windows.get(`prefix:${prefix}`)!.failures,
      );
      const free = Math.max(1, Math.floor(limit / 4));
      if (failures > free)
        await new Promise((r) => setTimeout(r, Math.min(MAX_DELAY_MS, 100 * 2 ** (failures - free - 1))));
      const ends = [byAddress, byPrefix].filter((w) => w !== undefined).map((w) => w.start + AUTH_WINDOW_MS);
      return ends.length ? Math.max(1, Math.max(...ends) - now()) : 0;
    },
  };
}
