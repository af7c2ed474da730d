/** Retry schedules for work rows: how long to wait after each failed attempt before the next. */

/** Default delays after attempts 1, 2, 3 ...; after the last, the row fails for good (about 24 hours in all). */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [
  30_000, // 30 s
  120_000, // 2 min
  600_000, // 10 min
  1_800_000, // 30 min
  3_600_000, // 1 h
  7_200_000, // 2 h
  14_400_000, // 4 h
  28_800_000, // 8 h
  28_800_000, // 8 h
];

/** Thrown by a handler when retrying cannot help: the row fails at once. */
export class PermanentJobError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PermanentJobError';
  }
}

/**
 * When the row should run again after its `attempts`-th attempt failed, or null when the schedule is exhausted.
 * `jitter` (0..1) spreads retries by up to that fraction of the delay, so failures do not retry in lockstep.
 */
export function nextRetryAt(
  schedule: readonly number[],
  attempts: number,
  now: number,
  jitter = 0,
  random = Math.random,
): number | null {
  const delay = schedule[attempts - 1];
  if (delay === undefined) return null;
  return now + Math.round(delay * (1 + jitter * random()));
}
