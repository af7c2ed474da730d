/**
 * Coalesced look-ups: the keys that concurrent requests ask for in one turn of the event loop are looked up with one
 * query per group (an account) instead of one query per request. With PostgreSQL each query is a round trip and a
 * socket write, which cost the accepting process more than the query itself; with SQLite it is one statement fewer.
 * A look-up still reads the committed state after it was asked for, as a query of its own would.
 */

/** Answers, for the keys of one group, those found and their values. */
export type GroupLookup<G, K, V> = (group: G, keys: K[]) => Promise<Map<K, V>>;

interface Waiting<K, V> {
  keys: K[];
  resolve(found: Map<K, V>): void;
  reject(err: unknown): void;
}

/** Wraps a look-up so that the calls made in one turn share one call per group. */
export function coalesced<G, K, V>(lookup: GroupLookup<G, K, V>): GroupLookup<G, K, V> {
  let pending = new Map<G, Waiting<K, V>[]>();

  const flush = (): void => {
    const groups = pending;
    pending = new Map();
    for (const [group, waiting] of groups) {
      const keys = [...new Set(waiting.flatMap((w) => w.keys))];
      lookup(group, keys).then(
        (found) => {
          for (const w of waiting) {
            const mine = new Map<K, V>();
            for (const k of w.keys) if (found.has(k)) mine.set(k, found.get(k)!);
            w.resolve(mine);
          }
        },
        (err: unknown) => {
          for (const w of waiting) w.reject(err);
        },
      );
    }
  };

  return (group, keys) =>
    new Promise((resolve, reject) => {
      if (pending.size === 0) setImmediate(flush);
      const list = pending.get(group);
      if (list) list.push({ keys, resolve, reject });
      else pending.set(group, [{ keys, resolve, reject }]);
    });
}
