/** Bounded waiting for tests: poll a condition instead of sleeping for a hoped-for duration. */
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls `check` every `intervalMs` until it returns a truthy value, and resolves with that value; rejects once
 * `timeoutMs` has passed without one. `check` may be async; an error it throws fails the wait at once.
 */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  timeoutMs: number,
  intervalMs = 10,
  what = 'condition',
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() >= deadline) throw new Error(`waitFor: ${what} not met within ${timeoutMs} ms`);
    await sleep(intervalMs);
  }
}
