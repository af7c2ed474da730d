import { describe, expect, it } from 'vitest';
import { inZone, wallTimeToEpoch, zoneOrUtc } from './time-zone.ts';

describe('times in the user’s zone', () => {
  it('reads a wall-clock time in the zone, on both sides of a daylight-saving change', () => {
    expect(wallTimeToEpoch('2026-12-03T09:00', 'Europe/Berlin')).toBe(Date.parse('2026-12-03T08:00:00Z'));
    expect(wallTimeToEpoch('2026-07-03T09:00', 'Europe/Berlin')).toBe(Date.parse('2026-07-03T07:00:00Z'));
    expect(wallTimeToEpoch('2026-12-03T09:00', 'America/New_York')).toBe(Date.parse('2026-12-03T14:00:00Z'));
    expect(wallTimeToEpoch('2026-12-03T09:00', 'UTC')).toBe(Date.parse('2026-12-03T09:00:00Z'));
  });

  it('refuses what is not a datetime-local value', () => {
    expect(wallTimeToEpoch('tomorrow', 'UTC')).toBeNaN();
    expect(wallTimeToEpoch('2026-13-40T09:00', 'UTC')).toBeNaN();
  });

  it('falls back to UTC for an unknown zone', () => {
    expect(zoneOrUtc('Mars/Olympus')).toBe('UTC');
    expect(zoneOrUtc(undefined)).toBe('UTC');
    expect(zoneOrUtc('Asia/Tokyo')).toBe('Asia/Tokyo');
  });

  it('shows an instant in the zone and names the zone', () => {
    expect(inZone(Date.parse('2026-12-03T08:00:00Z'), 'Europe/Berlin')).toBe(
      'Thu, 3 Dec 2026, 09:00 (Europe/Berlin)',
    );
  });
});
