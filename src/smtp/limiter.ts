/** A fixed-window counter per key: at most `max` takes per window; 0 turns it off. Per process (each node counts its own). */

/** Takes one unit for `key`; returns 0 when allowed, else the milliseconds until the window resets. */
export interface WindowLimiter {
  take(key: string): number;
}

export function createWindowLimiter(
  max: number,
  windowMs: number,
  now: () => number = Date.now,
): WindowLimiter {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    take(key) {
      if (max === 0) return 0;
      const t = now();
      let w = windows.get(key);
      if (!w || t - w.start >= windowMs) {
        if (windows.size > 10_000)
          for (const [k, v] of windows) if (t - v.start >= windowMs) windows.delete(k);
        w = { start: t, count: 0 };
        windows.set(key, w);
      }
      if (w.count >= max) return w.start + windowMs - t;
      w.count++;
      return 0;
    },
  };
}
