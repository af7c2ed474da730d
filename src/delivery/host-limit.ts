/**
 * A limit on concurrent work per key (here: connections per mail host). Work beyond the limit for a key waits, first
 * come first served, while work for other keys goes ahead. Keys with nothing running or waiting are forgotten, so the
 * map stays as small as the set of hosts being talked to. Lifecycle: one per transport, process-local.
 */

/** Runs `fn` once fewer than the limit of tasks for `key` are running. */
export type KeyedLimit = <T>(key: string, fn: () => Promise<T>) => Promise<T>;

interface Slot {
  running: number;
  waiting: (() => void)[];
}

/** A keyed limit allowing `max` tasks at once per key. */
export function keyedLimit(max: number): KeyedLimit {
  const slots = new Map<string, Slot>();
  return async (key, fn) => {
    let slot = slots.get(key);
    if (!slot) slots.set(key, (slot = { running: 0, waiting: [] }));
    if (slot.running < max) slot.running++;
    else await new Promise<void>((resolve) => slot.waiting.push(resolve));
    try {
      return await fn();
    } finally {
      // A waiting task takes over the finished task's place, so `running` stays the same.
      const next = slot.waiting.shift();
      if (next) next();
      else if (--slot.running === 0) slots.delete(key);
    }
  };
}
