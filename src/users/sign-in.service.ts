/**
 * Signing in to the console: the email and password check, with failures counted per address and per client IP in
 * the database (so every node agrees), counted before each check so that concurrent guesses cannot outrun it, and a
 * temporary lock-out past the limit; the second factor when the user has
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
import { clearKey, countFailure, lockedUntil, lockKey, uncountAttempt } from './throttles.repository.ts';
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
  const row = await findUserByEmail(db, email);
  const ok = await guardedCheck(db, config, { row, email, ip: input.ip, now }, async () => {
    const right = await verifyPassword(input.password, row?.password_hash ?? null);
    return right && row !== undefined && row.disabled_at === null;
  });
  if (!ok || !row) throw failed();
  await updateUser(db, row.id, { failed_attempts: 0, locked_until: null, last_sign_in_at: now });
  const needsSecondFactor = row.totp_enabled_at !== null;
  await record(db, auditOf(row, needsSecondFactor ? 'sign_in.password_ok' : 'sign_in.success', input.ip, {}));
  return { user: toUser(row), needsSecondFactor };
}

/** Who is checked: the user (when the address is one), the address as typed, the client IP and the time. */
export interface Attempt {
  row: UserRow | undefined;
  email: string;
  ip: string;
  now: number;
  /** The audit action of a wrong answer; `sign_in.failure` unless given. */
  failureAction?: string;
}

/**
 * Runs `check` (a password or code check) as one counted attempt of the address and the client IP. The attempt is
 * counted before the check, in one statement per key, so concurrent attempts past the limit are refused without
 * being checked; a wrong answer locks the key that reached the limit, a right one clears the address's count and
 * takes the attempt back from the IP's. Throws console.locked when refused; resolves to the check's answer.
 */
export async function guardedCheck(
  db: Queryable,
  config: Config,
  attempt: Attempt,
  check: () => Promise<boolean>,
): Promise<boolean> {
  const counts = await claimAttempt(db, config, attempt);
  if (await check()) {
    await clearKey(db, `email:${attempt.email}`);
    await uncountAttempt(db, `ip:${attempt.ip}`);
    return true;
  }
  await countFailures(db, config, attempt, counts);
  return false;
}

interface Counts {
  byEmail: number;
  byIp: number;
}

/** Refuses an attempt while a key is locked or already past its limit; otherwise counts it and returns the counts. */
async function claimAttempt(db: Queryable, config: Config, a: Attempt): Promise<Counts> {
  const { row, email, ip, now } = a;
  const windowMs = config.consoleLockoutMinutes * 60_000;
  let until = await lockedUntil(db, [`email:${email}`, `ip:${ip}`], now);
  const counts = { byEmail: 0, byIp: 0 };
  if (until === undefined) {
    counts.byEmail = await countFailure(db, `email:${email}`, now, now - windowMs);
    counts.byIp = await countFailure(db, `ip:${ip}`, now, now - windowMs);
    const max = config.consoleSignInMaxFailures;
    if (counts.byEmail > max || counts.byIp > max * IP_FACTOR) until = now + windowMs;
  }
  if (until === undefined) return counts;
  if (row) await record(db, auditOf(row, 'sign_in.locked', ip, { until: new Date(until).toISOString() }));
  throw lockedError(until, now);
}

/** Records a wrong answer: locks the address or IP that reached the limit, and audits it. */
async function countFailures(db: Queryable, config: Config, a: Attempt, counts: Counts): Promise<void> {
  const { row, email, ip, now } = a;
  const windowMs = config.consoleLockoutMinutes * 60_000;
  const lockEmail = counts.byEmail >= config.consoleSignInMaxFailures;
  if (lockEmail) await lockKey(db, `email:${email}`, now + windowMs);
  if (counts.byIp >= config.consoleSignInMaxFailures * IP_FACTOR)
    await lockKey(db, `ip:${ip}`, now + windowMs);
  const action = a.failureAction ?? 'sign_in.failure';
  if (row) {
    await updateUser(db, row.id, {
      failed_attempts: row.failed_attempts + 1,
      locked_until: lockEmail ? now + windowMs : row.locked_until,
    });
    await record(db, auditOf(row, action, ip, { failures: counts.byEmail, locked: lockEmail }));
  } else {
    await record(db, {
      accountId: null,
      actor: { type: 'system', id: 'console' },
      action,
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
  const row = await findUserById(db, user.id);
  const attempt = { row, email: user.email, ip: input.ip, now: Date.now() };
  const ok = await guardedCheck(db, config, attempt, async () => {
    const right = await checkTotp(db, sealer, user, input.code);
    return right && row !== undefined && row.disabled_at === null;
  });
  if (!ok || !row)
    throw new AppError(
      'console.sign_in_failed',
      'that code is not right; try the newest code your app shows',
    );
  await record(db, auditOf(row, 'sign_in.success', input.ip, { second_factor: true }));
}
