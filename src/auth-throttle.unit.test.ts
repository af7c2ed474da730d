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
  it('refuses failures past the limit, logs it once per window with the door and address, and frees it after', async () => {
    let clock = 1_000_000;
    const { log, lines } = recordingLog();
    const throttle = createAuthThrottle(4, log, () => clock);
    for (let i = 0; i < 4; i++) expect(await throttle.failed('198.51.100.7', `sp_key${i}`, 'smtp')).toBe(0);
    expect(await throttle.failed('198.51.100.7', 'sp_key4', 'smtp')).toBe(AUTH_WINDOW_MS);
    expect(await throttle.failed('198.51.100.8', 'sp_key5', 'smtp')).toBe(0);
    expect(lines).toEqual([
      {
        fields: { door: 'smtp', client: '198.51.100.7', failures: 5, windowMinutes: AUTH_WINDOW_MS / 60_000 },
        text: 'authentication throttled for a client address or key prefix',
      },
    ]);
    expect((await throttle.metric.get()).values).toEqual([
      expect.objectContaining({ labels: { door: 'smtp' }, value: 6 }),
    ]);
    clock += AUTH_WINDOW_MS;
    expect(await throttle.failed('198.51.100.7', 'sp_key6', 'smtp')).toBe(0);
  });
});
