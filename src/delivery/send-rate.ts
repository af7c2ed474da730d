/** Spacing of a lane's attempts under its send rate (kind.ts): one spacer per lane per worker process. */
import { setTimeout as sleep } from 'node:timers/promises';

/** Spaces calls so that at most `perSecond` pass each second (0: no limit). */
export function sendRateSpacer(perSecond: number): () => Promise<void> {
  if (perSecond <= 0) return async () => undefined;
  const gap = 1000 / perSecond;
  let next = 0;
  return async () => {
    const now = Date.now();
    const at = Math.max(now, next);
    next = at + gap;
    if (at > now) await sleep(at - now);
  };
}
