/** An owner's management of the account's users: invitations by email, roles, the protected-content permission, enabling. */
import type { AppContext } from '../context.ts';
import type { Queryable } from '../db/types.ts';
import { AppError } from '../errors/app-error.ts';
import { record, type AuditActor } from '../audit/audit.service.ts';
import { getAccount } from '../accounts/accounts.service.ts';
import { isRole } from './capabilities.ts';
import { countEnabledOwners, updateUser } from './users.repository.ts';
import { countFailure } from './throttles.repository.ts';
import { createUser, getUser, getUserByEmail, issueUserLink, type User } from './users.service.ts';
import { mailUserLink, setPasswordUrl } from './user-mail.ts';

/** A user of `customerId` by id, or user.not_found (a user of another account is not found either). */
export async function memberOf(db: Queryable, customerId: number, userId: string): Promise<User> {
  const user = await getUser(db, userId).catch(() => undefined);
  if (!user || user.customerId !== customerId)
    throw new AppError('user.not_found', 'no such user in this account');
  return user;
}

/** The outcome of an invitation: mailed, or (no verified domain to send from) the link to hand over. */
export interface Invitation {
  user: User;
  mailed: boolean;
  url?: string;
}

/** Invites a person: a user without a password, and a one-time link by email to set it. */
export async function inviteUser(
  ctx: AppContext,
  account: { customer_id: number; username: string },
  input: { email: string; role: string; canReadProtected: boolean },
  actor: AuditActor,
  ip?: string,
): Promise<Invitation> {
  const db = ctx.database.db;
  const user = await createUser(
    db,
    {
      customerId: account.customer_id,
      email: input.email,
      role: input.role,
      canReadProtected: input.canReadProtected,
    },
    actor,
    ip,
  );
  const token = await issueUserLink(db, user, 'invite');
  const mailed = await mailUserLink(ctx, user, account.username, 'invite', token);
  await record(db, {
    accountId: account.customer_id,
    actor,
    action: 'user.invite',
    target: `user:${user.id}`,
    ip,
    detail: { email: user.email, mailed },
  });
  return { user, mailed, url: mailed ? undefined : setPasswordUrl(ctx, token) };
}

/** Changes a user's role. The last enabled owner keeps theirs. */
export async function changeRole(
  db: Queryable,
  user: User,
  role: string,
  actor: AuditActor,
  ip?: string,
): Promise<void> {
  if (!isRole(role))
    throw new AppError(
      'user.role_invalid',
      `role must be one of owner, admin, editor, viewer (got "${role}")`,
    );
  if (role === user.role) return;
  if (user.role === 'owner' && !user.disabled && (await countEnabledOwners(db, user.customerId)) <= 1)
    throw new AppError(
      'user.last_owner',
      'this is the last enabled owner of the account; make another user owner first',
    );
  await updateUser(db, user.id, { role, updated_at: Date.now() });
  await record(db, {
    accountId: user.customerId,
    actor,
    action: 'user.role_change',
    target: `user:${user.id}`,
    ip,
    detail: { email: user.email, from: user.role, to: role },
  });
}

/** Grants or revokes the permission to read protected content. */
export async function setProtectedPermission(
  db: Queryable,
  user: User,
  granted: boolean,
  actor: AuditActor,
  ip?: string,
): Promise<void> {
  if (granted && user.role === 'viewer')
    throw new AppError(
      'console.forbidden',
      'viewers never read protected content; give the user another role first',
    );
  await updateUser(db, user.id, { can_read_protected: granted ? 1 : 0, updated_at: Date.now() });
  await record(db, {
    accountId: user.customerId,
    actor,
    action: granted ? 'user.protected_grant' : 'user.protected_revoke',
    target: `user:${user.id}`,
    ip,
    detail: { email: user.email },
  });
}

/** Enables a disabled user again. */
export async function enableUser(db: Queryable, user: User, actor: AuditActor, ip?: string): Promise<void> {
  if (!user.disabled) return;
  await updateUser(db, user.id, {
    disabled_at: null,
    failed_attempts: 0,
    locked_until: null,
    updated_at: Date.now(),
  });
  await record(db, {
    accountId: user.customerId,
    actor,
    action: 'user.enable',
    target: `user:${user.id}`,
    ip,
    detail: { email: user.email },
  });
}

/**
 * "Forgot password": counts the request against the client IP's limit and returns the rest of the work, to be run
 * after the answer is sent: looking the address up and mailing a reset link when it belongs to an enabled user. The
 * answer so waits for the same work whether the address is known or not, and says nothing either way.
 */
export async function requestPasswordReset(
  ctx: AppContext,
  email: string,
  ip: string,
): Promise<() => Promise<void>> {
  const db = ctx.database.db;
  const now = Date.now();
  const windowMs = ctx.config.consoleLockoutMinutes * 60_000;
  const allowed =
    (await countFailure(db, `reset:${ip}`, now, now - windowMs)) <= ctx.config.consoleSignInMaxFailures;
  return async () => {
    if (allowed) await mailResetLink(ctx, email, ip);
  };
}

/** Mails a reset link when `email` belongs to an enabled user, and audits the request. */
async function mailResetLink(ctx: AppContext, email: string, ip: string): Promise<void> {
  const db = ctx.database.db;
  const user = await getUserByEmail(db, email).catch(() => undefined);
  if (!user || user.disabled) return;
  const account = await getAccount(db, user.customerId);
  const token = await issueUserLink(db, user, 'reset');
  const mailed = await mailUserLink(ctx, user, account.username, 'reset', token);
  await record(db, {
    accountId: user.customerId,
    actor: { type: 'user', id: user.id },
    action: 'user.reset_request',
    target: `user:${user.id}`,
    ip,
    detail: { mailed },
  });
}
