/**
 * Times in the user's own time zone. The browser reports its zone (console.js fills `data-time-zone` inputs, and keeps
 * it in the `sealpost_tz` cookie for pages that only show times); without it, or with a zone the runtime does not know,
 * times are UTC.
 */

/** The zone if the runtime knows it, otherwise UTC. */
export function zoneOrUtc(raw: string | undefined): string {
  const tz = (raw ?? '').trim();
  if (!tz || tz.length > 64) return 'UTC';
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return tz;
  } catch {
    return 'UTC';
  }
}

/** How far the zone's wall clock is ahead of UTC at instant `ms`. */
function offsetAt(ms: number, tz: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: tz,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(new Date(ms));
  const n = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  const wall = Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second'));
  return wall - Math.floor(ms / 1000) * 1000;
}

/** The instant of a `datetime-local` value (`YYYY-MM-DDTHH:mm`) read in zone `tz`; NaN when it is not one. */
export function wallTimeToEpoch(local: string, tz: string): number {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(local)) return NaN;
  const asUtc = Date.parse(`${local}Z`);
  if (Number.isNaN(asUtc)) return NaN;
  // Twice: the first guess may sit on the other side of a daylight-saving change.
  const first = asUtc - offsetAt(asUtc, tz);
  return asUtc - offsetAt(first, tz);
}

/** The zone's wall clock at `ms`: weekday, day, month, year and time, to the minute or the second. */
function clock(ms: number, tz: string, seconds: boolean): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: tz,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    ...(seconds ? { second: '2-digit' } : {}),
    hourCycle: 'h23',
  }).format(new Date(ms));
}

/** An instant as the zone's wall clock, with the zone named: "Thu, 3 Dec 2026, 09:00 (Europe/Berlin)". */
export function inZone(ms: number, tz: string): string {
  return `${clock(ms, tz, false)} (${tz})`;
}

/** An instant as the zone's wall clock to the second, without the zone: "Wed, 2 Dec 2026, 14:39:45". */
export function wallClock(ms: number, tz: string): string {
  return clock(ms, tz, true);
}
