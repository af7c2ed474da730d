/** The retry schedule: when a failed row runs again, and when it stops being retried. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_SCHEDULE_MS, nextRetryAt } from './retry.ts';

const NOW = 1_700_000_000_000;

describe('nextRetryAt', () => {
  it('waits the scheduled delay for the attempt that just failed', () => {
    const schedule = [1000, 5000, 20_000];
    expect([1, 2, 3].map((attempts) => nextRetryAt(schedule, attempts, NOW))).toEqual([
      NOW + 1000,
      NOW + 5000,
      NOW + 20_000,
    ]);
  });

  it('returns null once the schedule is exhausted', () => {
    expect(nextRetryAt([1000, 5000], 3, NOW)).toBeNull();
    expect(nextRetryAt(DEFAULT_RETRY_SCHEDULE_MS, DEFAULT_RETRY_SCHEDULE_MS.length + 1, NOW)).toBeNull();
  });

  it('retries with the default schedule for about a day before giving up', () => {
    const total = DEFAULT_RETRY_SCHEDULE_MS.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(20 * 3_600_000);
    expect(total).toBeLessThan(28 * 3_600_000);
  });

  it('keeps jittered delays between the delay and the delay plus the jitter fraction', () => {
    const randoms = [0, 0.25, 0.5, 0.999_999, 1 - Number.EPSILON];
    for (const r of randoms) {
      const at = nextRetryAt([10_000], 1, NOW, 0.2, () => r)!;
      expect(at - NOW).toBeGreaterThanOrEqual(10_000);
      expect(at - NOW).toBeLessThanOrEqual(12_000);
    }
  });

  it('spreads jittered delays over the jitter range rather than one value', () => {
    const delays = new Set(Array.from({ length: 200 }, () => nextRetryAt([10_000], 1, NOW, 0.5)! - NOW));
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(10_000);
    expect(Math.max(...delays)).toBeLessThanOrEqual(15_000);
    expect(delays.size).toBeGreaterThan(50);
  });
});
