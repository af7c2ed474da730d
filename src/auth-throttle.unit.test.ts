/** The failed-authentication throttle on its own: refusal at the limit, one log line per address and window. */
import type { Logger } from 'pino';
import { describe, expect, it } from 'vitest';
import { AUTH_WINDOW_MS, createAuthThrottle } from './auth-throttle.ts';

function recordingLog(): { log: Logger; lines: { fields: Record<string, unknown>; text: string }[] } {
  const lines: { fields: Record<string, unknown>; text: string }[] = [];
  const log = { warn: (fields: Record<string, unknown>, text: string) => lines.push({ fields, text }) };
  return { log: log as unknown as Logger, lines };
}

describe('failed authentication throttle', () => {
  it('refuses an address at the limit, logs it once per window with the door and address, and frees it after', async () => {
    let clock = 1_000_000;
    const { log, lines } = recordingLog();
    const throttle = createAuthThrottle(4, log, () => clock);
    for (let i = 0; i < 4; i++) await throttle.failed('198.51.100.7', 'smtp');
    expect(throttle.refusedFor('198.51.100.7')).toBe(AUTH_WINDOW_MS);
    expect(throttle.refusedFor('198.51.100.8')).toBe(0);
    await throttle.failed('198.51.100.7', 'smtp');
    expect(lines).toEqual([
      {
        fields: { door: 'smtp', client: '198.51.100.7', failures: 4, windowMinutes: AUTH_WINDOW_MS / 60_000 },
        text: 'authentication throttled for a client address',
      },
    ]);
    expect((await throttle.metric.get()).values).toEqual([
      expect.objectContaining({ labels: { door: 'smtp' }, value: 5 }),
    ]);
    clock += AUTH_WINDOW_MS;
    expect(throttle.refusedFor('198.51.100.7')).toBe(0);
  });
});
