/** Input masks of text fields: the names a definition may use and the check each applies to a submitted value. */

/** Every input mask a TextInput may name. */
export const MASKS = ['Any', 'Email', 'Phone', 'Number', 'Integer', 'Date', 'ZIP'] as const;
/** One input mask. */
export type Mask = (typeof MASKS)[number];

const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/i;
const PHONE = /^\+?[0-9 ().-]{7,24}$/;
const NUMBER = /^[+-]?(?:\d+(?:\.\d+)?|\.\d+)$/;
const INTEGER = /^[+-]?\d+$/;
const ZIP = /^\d{5}(?:-\d{4})?$/;

/** True for a calendar date written YYYY-MM-DD that exists (no 2023-02-30). */
export function isIsoDate(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return (
    d.getUTCFullYear() === Number(m[1]) &&
    d.getUTCMonth() === Number(m[2]) - 1 &&
    d.getUTCDate() === Number(m[3])
  );
}

/** The problem with `value` under `mask`, or null when it fits. The message never repeats the value. */
export function maskProblem(mask: Mask, value: string): string | null {
  switch (mask) {
    case 'Any':
      return null;
    case 'Email':
      return EMAIL.test(value) && value.length <= 254 ? null : 'must be a valid email address';
    case 'Phone':
      return PHONE.test(value) && (value.match(/\d/g)?.length ?? 0) >= 7
        ? null
        : 'must be a valid phone number';
    case 'Number':
      return NUMBER.test(value) ? null : 'must be a number';
    case 'Integer':
      return INTEGER.test(value) ? null : 'must be a whole number';
    case 'Date':
      return isIsoDate(value) ? null : 'must be a date written YYYY-MM-DD';
    case 'ZIP':
      return ZIP.test(value) ? null : 'must be a ZIP code (12345 or 12345-6789)';
  }
}

/** The HTML input type and inputmode that suit a mask on the hosted page. */
export function maskInput(mask: Mask): { type: string; inputmode?: string; autocomplete?: string } {
  switch (mask) {
    case 'Email':
      return { type: 'email', autocomplete: 'email' };
    case 'Phone':
      return { type: 'tel', autocomplete: 'tel' };
    case 'Number':
      return { type: 'text', inputmode: 'decimal' };
    case 'Integer':
    case 'ZIP':
      return { type: 'text', inputmode: 'numeric' };
    case 'Date':
      return { type: 'date' };
    default:
      return { type: 'text' };
  }
}
