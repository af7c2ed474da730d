/**
 * Signing in to the console: the email and password check, with failures counted per address and per client IP in
 * the database (so every node agrees) and a temporary lock-out past the limit; the second factor when the user has
 * one; and the audit entries of success, failure and lock-out.
 */
import type { Config } from '../config/schema.ts';
import type { Queryable } from '../db/types.ts';
import { AppError } from '../errors/app-error.ts';
import { record } from '../audit/audit.service.ts';
import { verifyPassword } from './passwords.ts';
import { findUserByEmail, findUserById, updateUser, type UserRow } from './users.repository.ts';
import type { Sealer } from '../crypto/sealer.ts';
import { checkTotp } from './totp.service.ts';
import { clearKey, countFailure, lockedUntil, lockKey } from './throttles.repository.ts';
import { toUser, type User } from './users.service.ts';

/** IP throttles allow this many times the per-address limit (an office behind one address signs in many people). */
const IP_FACTOR = 4;

/** The outcome of a correct email and password. */
export interface SignInResult {
  user: User;
  /** True when a TOTP code must follow before the session is active. */
  needsSecondFactor: boolean;
}

const failed = () => new AppError('console.sign_in_failed', 'the email address or password is not right');

/** Checks email and password; throws console.sign_in_failed or console.locked. */
export async function signIn(
  db: Queryable,
  config: Config,
  input: { email: string; password: string; ip: string },
): Promise<SignInResult> {
  const email = input.email.trim().toLowerCase();
  const now = Date.now();
  const keys = [`email:${email}`, `ip:${input.ip}`];
  const locked = await lockedUntil(db, keys, now);
  const row = await findUserByEmail(db, email);
  if (locked !== undefined) {
    if (row)
      await record(db, auditOf(row, 'sign_in.locked', input.ip, { until: new Date(locked).toISOString() }));
    throw lockedError(locked, now);
  }
  const ok = await verifyPassword(input.password, row?.password_hash ?? null);
  if (!row || !ok || row.disabled_at !== null) {
    await countFailures(db, config, row, email, input.ip, now);
    throw failed();
  }
  await clearKey(db, `email:${email}`);
  await updateUser(db, row.id, { failed_attempts: 0, locked_until: null, last_sign_in_at: now });
  const needsSecondFactor = row.totp_enabled_at !== null;
  await record(db, auditOf(row, needsSecondFactor ? 'sign_in.password_ok' : 'sign_in.success', input.ip, {}));
  return { user: toUser(row), needsSecondFactor };
}

/** Counts a failed sign-in (or second-factor code) and locks the address or IP past the limit. */
export async function countFailures(
  db: Queryable,
  config: Config,
  row: UserRow | undefined,
  email: string,
  ip: string,
  now = Date.now(),
): Promise<void> {
  const windowMs = config.consoleLockoutMinutes * 60_000;
  const byEmail = await countFailure(db, `email:${email}`, now, now - windowMs);
  const byIp = await countFailure(db, `ip:${ip}`, now, now - windowMs);
  const lockEmail = byEmail >= config.consoleSignInMaxFailures;
  if (lockEmail) await lockKey(db, `email:${email}`, now + windowMs);
  if (byIp >= config.consoleSignInMaxFailures * IP_FACTOR) await lockKey(db, `ip:${ip}`, now + windowMs);
  if (row) {
    await updateUser(db, row.id, {
      failed_attempts: row.failed_attempts + 1,
      locked_until: lockEmail ? now + windowMs : row.locked_until,
    });
    await record(db, auditOf(row, 'sign_in.failure', ip, { failures: byEmail, locked: lockEmail }));
  } else {
    await record(db, {
      accountId: null,
      actor: { type: 'system', id: 'console' },
      action: 'sign_in.failure',
      target: `email:${email}`,
      ip,
      detail: { unknown_user: true },
    });
  }
}

function lockedError(until: number, now: number): AppError {
  const minutes = Math.max(1, Math.ceil((until - now) / 60_000));
  return new AppError(
    'console.locked',
    `too many failed sign-ins: try again in ${minutes} minute${minutes === 1 ? '' : 's'}`,
    {
      headers: { 'retry-after': String(Math.ceil((until - now) / 1000)) },
    },
  );
}

function auditOf(row: UserRow, action: string, ip: string, detail: Record<string, unknown>) {
  return {
    accountId: Number(row.customer_id),
    actor: { type: 'user' as const, id: row.id },
    action,
    target: `user:${row.id}`,
    ip,
    detail,
  };
}

/** Checks the TOTP code of a user whose password was right; throws console.sign_in_failed or console.locked. */
export async function signInSecondFactor(
  db: Queryable,
  config: Config,
  sealer: Sealer,
  user: User,
  input: { code: string; ip: string },
): Promise<void> {
  const now = Date.now();
  const locked = await lockedUntil(db, [`email:${user.email}`, `ip:${input.ip}`], now);
  if (locked !== undefined) throw lockedError(locked, now);
  const row = await findUserById(db, user.id);
  if (!row || row.disabled_at !== null || !(await checkTotp(db, sealer, user, input.code))) {
    await countFailures(db, config, row, user.email, input.ip, now);
    throw new AppError(
      'console.sign_in_failed',
      'that code is not right; try the newest code your app shows',
    );
  }
  await clearKey(db, `email:${user.email}`);
  await record(db, auditOf(row, 'sign_in.success', input.ip, { second_factor: true }));
}
