/** Receipt times are RFC 2822 style date strings, as clients parse them: `Mon, 23 Apr 2018 13:27:41 +0000`. */
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number) => String(n).padStart(2, '0');

/** Formats epoch milliseconds as an RFC 2822 date in UTC; null gives an empty string. */
export function rfc2822(ms: number | null): string {
  if (ms === null) return '';
  const d = new Date(ms);
  return `${DAYS[d.getUTCDay()]}, ${two(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} +0000`;
}

/** RFC 3339 with a time zone (`Z` or an offset). */
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:?\d{2})$/;

/** Whether the calendar date at the start of an RFC 3339 text exists (Date.parse rolls 2026-02-30 over to March). */
function realDate(text: string): boolean {
  const [y, m, d] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  const day = new Date(Date.UTC(y, m - 1, d));
  return day.getUTCFullYear() === y && day.getUTCMonth() === m - 1 && day.getUTCDate() === d;
}

/** Epoch milliseconds of an RFC 3339 date-time that names its time zone; NaN for anything else (no zone, no such day). */
export function parseZonedTimestamp(text: string): number {
  const t = text.trim();
  return RFC3339.test(t) && realDate(t) ? Date.parse(t) : NaN;
}
