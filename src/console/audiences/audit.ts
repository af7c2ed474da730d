/** The audit entry of a marketing change made in the console: who, which account, from where. */
import { record } from '../../audit/audit.service.ts';
import type { ConsoleContext, FormFields } from '../page.ts';

/** Records a console change to audiences or campaigns in the audit trail. */
export async function audited(
  c: ConsoleContext,
  action: string,
  target: string,
  detail: Record<string, unknown> = {},
): Promise<void> {
  await record(c.ctx.database.db, {
    accountId: c.account.customer_id,
    actor: c.actor,
    action,
    target,
    ip: c.ip,
    detail,
  });
}

/** A form field as one string ('' when absent; the first of a repeated field). */
export function field<F extends FormFields>(c: ConsoleContext<F>, name: keyof F & string): string {
  const v = c.form[name];
  return (Array.isArray(v) ? v[0] : v) ?? '';
}

/** An opaque marketing id as a URL path segment. */
export function seg(id: string | number): string {
  return encodeURIComponent(String(id));
}
