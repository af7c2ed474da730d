/**
 * Counted attempts at a console secret (a password, a two-factor code): failures are counted in the database per email
 * address and per client IP (so every node agrees), each attempt before its check so that concurrent guesses cannot
 * outrun the limit, with a temporary lock-out past it and an audit entry for every wrong answer and every refusal.
 */
import type { Config } from '../config/schema.ts';
import type { Queryable } from '../db/types.ts';
import { AppError } from '../errors/app-error.ts';
import { record } from '../audit/audit.service.ts';
import { updateUser, type UserRow } from './users.repository.ts';
import { clearKey, countFailure, lockedUntil, lockKey, uncountAttempt } from './throttles.repository.ts';

/** IP throttles allow this many times the per-address limit (an office behind one address signs in many people). */
const IP_FACTOR = 4;

/** Who is checked: the user (when the address is one), the address as typed, the client IP and the time. */
export interface Attempt {
  row: UserRow | undefined;
  email: string;
  ip: string;
  now: number;
  /** The audit action of a wrong answer; `sign_in.failure` unless given. */
  failureAction?: string;
  /**
   * True when a right answer is only the first of two steps (a password before its code): it leaves the address's count
   * as it is, so signing in again cannot wipe out wrong codes.
   */
  firstOfTwo?: boolean;
}

/**
 * Runs `check` (a password or code check) as one counted attempt of the address and the client IP. The attempt is
 * counted before the check, in one statement per key, so concurrent attempts past the limit are refused without
 * being checked; a wrong answer locks the key that reached the limit, a right one clears the address's count (unless
 * it is the first of two steps) and takes the attempt back from the address's and the IP's. Throws console.locked when refused; resolves to the check's answer.
 */
export async function guardedCheck(
  db: Queryable,
  config: Config,
  attempt: Attempt,
  check: () => Promise<boolean>,
): Promise<boolean> {
  const counts = await claimAttempt(db, config, attempt);
  if (await check()) {
    if (attempt.firstOfTwo) await uncountAttempt(db, `email:${attempt.email}`);
    else await clearKey(db, `email:${attempt.email}`);
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

export function auditOf(row: UserRow, action: string, ip: string, detail: Record<string, unknown>) {
  return {
    accountId: Number(row.customer_id),
    actor: { type: 'user' as const, id: row.id },
    action,
    target: `user:${row.id}`,
    ip,
    detail,
  };
}
