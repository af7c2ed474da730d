/**
 * Throttling of failed authentication per client address, shared by API keys over HTTP and SMTP AUTH: past a quarter
 * of the allowed failures each further failure is answered after a growing delay, and at the limit every
 * authentication from that address is refused until its window ends. Counted in process memory, like the public form
 * limit; each failure is counted in `sealpost_auth_failures_total`, and throttling is logged once per address and window.
 */
import { Counter } from 'prom-client';
import type { Logger } from 'pino';

/** The window over which failures are counted. */
export const AUTH_WINDOW_MS = 10 * 60_000;
const MAX_DELAY_MS = 2000;
const MAX_TRACKED = 50_000;

/** The door an authentication came through. */
export type AuthDoor = 'http' | 'smtp';

/** The failed-authentication throttle of one process. */
export interface AuthThrottle {
  /** Milliseconds until `address` may authenticate again; 0 when it may now. */
  refusedFor(address: string): number;
  /** Records a failure from `address`; resolves after the delay this failure earns. */
  failed(address: string, door: AuthDoor): Promise<void>;
  /** The failure counter, for a metrics registry. */
  readonly metric: Counter<'door'>;
}

interface Window {
  start: number;
  failures: number;
  logged: boolean;
}

/** Creates the throttle: `limit` failures per address per window (0 turns it off). */
export function createAuthThrottle(limit: number, log: Logger, now: () => number = Date.now): AuthThrottle {
  const windows = new Map<string, Window>();
  const metric = new Counter({
    name: 'sealpost_auth_failures_total',
    help: 'Failed authentications (API keys, SMTP AUTH) by door',
    labelNames: ['door'] as const,
    registers: [],
  });

  function current(address: string): Window | undefined {
    const w = windows.get(address);
    if (w && now() - w.start >= AUTH_WINDOW_MS) windows.delete(address);
    return windows.get(address);
  }

  function open(address: string): Window {
    const existing = current(address);
    if (existing) return existing;
    if (windows.size >= MAX_TRACKED)
      for (const [k, v] of windows) if (now() - v.start >= AUTH_WINDOW_MS) windows.delete(k);
    const w = { start: now(), failures: 0, logged: false };
    windows.set(address, w);
    return w;
  }

  return {
    metric,
    refusedFor(address) {
      if (limit === 0) return 0;
      const w = current(address);
      return w && w.failures >= limit ? w.start + AUTH_WINDOW_MS - now() : 0;
    },
    async failed(address, door) {
      metric.inc({ door });
      if (limit === 0) return;
      const w = open(address);
      w.failures++;
      if (w.failures >= limit && !w.logged) {
        w.logged = true;
        log.warn(
          { door, client: address, failures: w.failures, windowMinutes: AUTH_WINDOW_MS / 60_000 },
          'authentication throttled for a client address',
        );
      }
      const free = Math.max(1, Math.floor(limit / 4));
      if (w.failures > free)
        await new Promise((r) => setTimeout(r, Math.min(MAX_DELAY_MS, 100 * 2 ** (w.failures - free - 1))));
    },
  };
}
