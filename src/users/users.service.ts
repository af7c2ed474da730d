/** Console users: creation, look-up, listing, disabling, one-time links (set password, reset, invitation) and the password check. */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { AppError } from '../errors/app-error.ts';
import { isUniqueViolation } from '../db/errors.ts';
import type { Queryable, UserRole } from '../db/types.ts';
import { record, type AuditActor } from '../audit/audit.service.ts';
import { isRole } from './capabilities.ts';
import { checkPasswordRules, hashPassword } from './passwords.ts';
import {
  consumeUserToken,
  countEnabledOwners,
  findUserByEmail,
  findUserById,
  findUsableUserToken,
  insertUser,
  insertUserToken,
  listUsers,
  revokeUserTokens,
  updateUser,
  type UserRow,
} from './users.repository.ts';
import { deleteSessionsOfUser } from './sessions.repository.ts';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const LINK_TTL_MS = 72 * 3_600_000;

/** A user as pages and the command line show it. */
export interface User {
  id: string;
  customerId: number;
  email: string;
  role: UserRole;
  canReadProtected: boolean;
  operator: boolean;
  disabled: boolean;
  hasPassword: boolean;
  totpEnabled: boolean;
  lastSignInAt: number | null;
  createdAt: number;
}

/** The public shape of a stored user. */
export function toUser(row: UserRow): User {
  return {
    id: row.id,
    customerId: Number(row.customer_id),
    email: row.email,
    role: row.role,
    canReadProtected: row.can_read_protected === 1,
    operator: row.operator === 1,
    disabled: row.disabled_at !== null,
    hasPassword: row.password_hash !== null,
    totpEnabled: row.totp_enabled_at !== null,
    lastSignInAt: row.last_sign_in_at === null ? null : Number(row.last_sign_in_at),
    createdAt: Number(row.created_at),
  };
}

/** Lower-cases and checks an email address. */
export function normalizeEmail(input: string): string {
  const email = input.trim().toLowerCase();
  if (!EMAIL.test(email) || email.length > 254)
    throw new AppError('user.email_invalid', `"${input}" is not an email address`);
  return email;
}

/** What creating a user needs. */
export interface NewUser {
  customerId: number;
  email: string;
  role: string;
  password?: string;
  operator?: boolean;
  canReadProtected?: boolean;
}

/** Creates a user (with a password, or none until a one-time link sets it) and records it in the audit trail. */
export async function createUser(
  db: Queryable,
  input: NewUser,
  actor: AuditActor,
  ip?: string,
): Promise<User> {
  const email = normalizeEmail(input.email);
  if (!isRole(input.role))
    throw new AppError(
      'user.role_invalid',
      `role must be one of owner, admin, editor, viewer (got "${input.role}")`,
    );
  if (input.password !== undefined) checkPasswordRules(input.password);
  const now = Date.now();
  const id = randomUUID();
  try {
    await insertUser(db, {
      id,
      customer_id: input.customerId,
      email,
      role: input.role,
      can_read_protected: input.canReadProtected ? 1 : 0,
      operator: input.operator ? 1 : 0,
      password_hash: input.password === undefined ? null : await hashPassword(input.password),
      failed_attempts: 0,
      created_at: now,
      updated_at: now,
    });
  } catch (err) {
    if (isUniqueViolation(err))
      throw new AppError('user.email_taken', `a user with the email address ${email} already exists`);
    throw err;
  }
  await record(db, {
    accountId: input.customerId,
    actor,
    action: 'user.create',
    target: `user:${id}`,
    ip,
    detail: { email, role: input.role, operator: input.operator === true },
  });
  return toUser((await findUserById(db, id))!);
}

/** A user by email, or user.not_found. */
export async function getUserByEmail(db: Queryable, email: string): Promise<User> {
  const row = await findUserByEmail(db, email.trim().toLowerCase());
  if (!row) throw new AppError('user.not_found', `no user with the email address ${email}`);
  return toUser(row);
}

/** A user by id, or user.not_found. */
export async function getUser(db: Queryable, id: string): Promise<User> {
  const row = await findUserById(db, id);
  if (!row) throw new AppError('user.not_found', 'no such user');
  return toUser(row);
}

/** Users of an account (every account when none is given). */
export async function usersOf(db: Queryable, customerId?: number): Promise<User[]> {
  return (await listUsers(db, customerId)).map(toUser);
}

/** Disables a user (their sessions stop working at once). The last enabled owner of an account stays. */
export async function disableUser(db: Queryable, user: User, actor: AuditActor, ip?: string): Promise<void> {
  if (user.disabled) return;
  if (user.role === 'owner' && (await countEnabledOwners(db, user.customerId)) <= 1)
    throw new AppError(
      'user.last_owner',
      'this is the last enabled owner of the account; make another user owner first',
    );
  await updateUser(db, user.id, { disabled_at: Date.now(), updated_at: Date.now() });
  await deleteSessionsOfUser(db, user.id);
  await revokeUserTokens(db, user.id, Date.now());
  await record(db, {
    accountId: user.customerId,
    actor,
    action: 'user.disable',
    target: `user:${user.id}`,
    ip,
    detail: { email: user.email },
  });
}

/** Hashes a link token for storage and look-up. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Makes a one-time link token for a user; returns the token (shown once, stored only as a hash). */
export async function issueUserLink(
  db: Queryable,
  user: User,
  purpose: 'set_password' | 'reset' | 'invite',
): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  const now = Date.now();
  await revokeUserTokens(db, user.id, now);
  await insertUserToken(db, {
    id: hashToken(token),
    user_id: user.id,
    purpose,
    expires_at: now + LINK_TTL_MS,
    created_at: now,
  });
  return token;
}

/** The user a usable link belongs to (the link stays usable), or user.link_invalid. */
export async function userOfLink(db: Queryable, token: string): Promise<User> {
  const row = await findUsableUserToken(db, hashToken(token), Date.now());
  if (!row)
    throw new AppError(
      'user.link_invalid',
      'this link is not valid: it may have expired or been used already',
    );
  return getUser(db, row.user_id);
}

/** Uses a link to set a new password; the link works once. Returns the user. */
export async function setPasswordWithLink(
  db: Queryable,
  token: string,
  password: string,
  ip?: string,
): Promise<User> {
  checkPasswordRules(password);
  const row = await consumeUserToken(db, hashToken(token), Date.now());
  if (!row)
    throw new AppError(
      'user.link_invalid',
      'this link is not valid: it may have expired or been used already',
    );
  const user = await getUser(db, row.user_id);
  await revokeUserTokens(db, user.id, Date.now());
  await updateUser(db, user.id, {
    password_hash: await hashPassword(password),
    failed_attempts: 0,
    locked_until: null,
    updated_at: Date.now(),
  });
  await deleteSessionsOfUser(db, user.id);
  await record(db, {
    accountId: user.customerId,
    actor: { type: 'user', id: user.id },
    action: 'user.password_set',
    target: `user:${user.id}`,
    ip,
    detail: { via: row.purpose },
  });
  return user;
}
