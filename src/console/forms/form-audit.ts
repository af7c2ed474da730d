/** The audit entry of a console change to a form. */
import { record } from '../../audit/audit.service.ts';
import type { ConsoleContext } from '../page.ts';

/** Records a change of a form in the audit trail, with the signed-in user as actor. */
export async function auditForm(
  c: ConsoleContext,
  action: string,
  target: string,
  detail?: Record<string, unknown>,
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
