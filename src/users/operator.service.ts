/**
 * The installation operator's account switcher: an operator (`sealpost user create --operator`) may look at any
 * account of the installation. Switching is a property of the console session (every page then shows the chosen
 * account), refused on the server for anyone who is not an operator, and recorded in the audit trail of the account
 * looked at. While looking at an account other than their own, an operator may read, never change or read protected
 * content (see `effectiveHolder`).
 */
import type { Queryable } from '../db/types.ts';
import { AppError } from '../errors/app-error.ts';
import { getAccount, type Account } from '../accounts/accounts.service.ts';
import { record } from '../audit/audit.service.ts';
import type { CapabilityHolder } from './capabilities.ts';
import { actAs, type Session } from './sessions.service.ts';
import type { User } from './users.service.ts';

/** The account a session shows: the one an operator chose, or the user's own (always the own for a non-operator). */
export function viewedAccountId(session: Session): number {
  return session.user.operator && session.actingCustomerId !== null
    ? session.actingCustomerId
    : session.user.customerId;
}

/** What a user may do in the account shown: their role in their own account; only reading in another one. */
export function effectiveHolder(user: User, viewedCustomerId: number): CapabilityHolder {
  return viewedCustomerId === user.customerId ? user : { role: 'viewer', canReadProtected: false };
}

/** Makes an operator's session show another account (or their own again); refused for anyone else. */
export async function switchAccount(
  db: Queryable,
  session: Session,
  ref: string | number,
  ip?: string,
): Promise<Account> {
  if (!session.user.operator)
    throw new AppError(
      'console.forbidden',
      'only an operator of the installation may look at other accounts',
    );
  const account = await getAccount(db, ref);
  const from = viewedAccountId(session);
  const own = account.customer_id === session.user.customerId;
  await actAs(db, session.id, own ? null : account.customer_id);
  await record(db, {
    accountId: account.customer_id,
    actor: { type: 'user', id: session.user.id },
    action: 'operator.switch_account',
    target: `account:${account.customer_id}`,
    ip,
    detail: { from, to: account.customer_id, operator_account: session.user.customerId },
  });
  return account;
}
