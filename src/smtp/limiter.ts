/** A fixed-window counter per key: at most `max` units per window; 0 turns it off. Per process (each node counts its own). */

export interface WindowLimiter {
  /** Takes one unit for `key`; returns 0 when allowed, else the milliseconds until the window resets. */
  take(key: string): number;
  /** 0 while `key` has a unit left in its window, else the milliseconds until the window resets; takes nothing. */
  exhausted(key: string): number;
}

export function createWindowLimiter(
  max: number,
  windowMs: number,
  now: () => number = Date.now,
): WindowLimiter {
  const windows = new Map<string, { start: number; count: number }>();
  const current = (key: string, t: number) => {
    let w = windows.get(key);
    if (!w || t - w.start >= windowMs) {
      if (windows.size > 10_000) for (const [k, v] of windows) if (t - v.start >= windowMs) windows.delete(k);
      w = { start: t, count: 0 };
      windows.set(key, w);
    }
    return w;
  };
  return {
    take(key) {
      if (max === 0) return 0;
      const t = now();
      const w = current(key, t);
      if (w.count >= max) return w.start + windowMs - t;
      w.count++;
      return 0;
    },
    exhausted(key) {
      if (max === 0) return 0;
      const t = now();
      const w = current(key, t);
      return w.count >= max ? w.start + windowMs - t : 0;
    },
  };
}
