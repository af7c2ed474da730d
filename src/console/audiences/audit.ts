/** Helpers of the marketing console pages: the audit entry of a change, a form field, an id as a path segment. */
import type { ConsoleContext, FormFields } from '../page.ts';

/** Records a console change to audiences or campaigns in the audit trail. */
export { audited } from '../page.ts';

/** A form field as one string ('' when absent; the first of a repeated field). */
export function field<F extends FormFields>(c: ConsoleContext<F>, name: keyof F & string): string {
  const v = c.form[name];
  return (Array.isArray(v) ? v[0] : v) ?? '';
}

/** An opaque marketing id as a URL path segment. */
export function seg(id: string | number): string {
  return encodeURIComponent(String(id));
}
