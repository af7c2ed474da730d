/**
 * Per-IP limit of public submissions: a fixed one-minute window counted in this process's memory (the map is emptied
 * when the window turns, so it holds at most one minute of client addresses). Several nodes each count their own.
 */
import { AppError } from '../../errors/app-error.ts';

/** Counts submissions per client IP. */
export interface IpLimiter {
  /** Counts one submission from `ip`; throws rate_limited when the window's budget is spent. */
  take(ip: string): void;
}

/** A limiter allowing `perMinute` submissions per IP per minute (0: unlimited). */
export function createIpLimiter(perMinute: number, now: () => number = Date.now): IpLimiter {
  let windowStart = 0;
  let counts = new Map<string, number>();
  return {
    take(ip) {
      if (perMinute === 0) return;
      const t = now();
      if (t - windowStart >= 60_000) {
        windowStart = t;
        counts = new Map();
      }
      const n = (counts.get(ip) ?? 0) + 1;
      counts.set(ip, n);
      if (n > perMinute) {
        const retry = Math.max(1, Math.ceil((windowStart + 60_000 - t) / 1000));
        throw new AppError('rate_limited', `too many submissions from this address; retry in ${retry} s`, {
          headers: { 'retry-after': String(retry) },
        });
      }
    },
  };
}
