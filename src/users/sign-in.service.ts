/**
 * Signing in to the console: the email and password check and the second factor when the user has one, each a
 * counted attempt (attempts.ts) with a temporary lock-out past the limit (a recovery code in place of the app's code
 * counts the same); and the audit entries of success.
 */
import type { Config } from '../config/schema.ts';
import type { Queryable } from '../db/types.ts';
import { AppError } from '../errors/app-error.ts';
import { record } from '../audit/audit.service.ts';
import { verifyPassword } from './passwords.ts';
import { findUserByEmail, findUserById, updateUser } from './users.repository.ts';
import type { Sealer } from '../crypto/sealer.ts';
import { checkTotp } from './totp.service.ts';
import { recoveryCodesLeft, useRecoveryCode } from './recovery-codes.service.ts';
import { auditOf, guardedCheck } from './attempts.ts';
import { toUser, type User } from './users.service.ts';

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
  const firstOfTwo = row?.totp_enabled_at != null;
  const ok = await guardedCheck(db, config, { row, email, ip: input.ip, now, firstOfTwo }, async () => {
    const right = await verifyPassword(input.password, row?.password_hash ?? null);
    return right && row !== undefined && row.disabled_at === null;
  });
  if (!ok || !row) throw failed();
  await updateUser(db, row.id, {
    ...(!firstOfTwo && { failed_attempts: 0, locked_until: null }),
    last_sign_in_at: now,
  });
  const needsSecondFactor = row.totp_enabled_at !== null;
  await record(db, auditOf(row, needsSecondFactor ? 'sign_in.password_ok' : 'sign_in.success', input.ip, {}));
  return { user: toUser(row), needsSecondFactor };
}

/** What the second step of a sign-in was given: the code from the app, or one of the user's recovery codes. */
export interface SecondFactorInput {
  code: string;
  /** True when `code` is a recovery code. */
  recovery?: boolean;
  ip: string;
}

/**
 * Checks the second factor of a user whose password was right: a TOTP code, or a recovery code (used up when right).
 * Both are counted attempts against the same lock-out. Throws console.sign_in_failed or console.locked; resolves to
 * the number of recovery codes left after one was used, or undefined for a TOTP code.
 */
export async function signInSecondFactor(
  db: Queryable,
  config: Config,
  sealer: Sealer,
  user: User,
  input: SecondFactorInput,
): Promise<number | undefined> {
  const row = await findUserById(db, user.id);
  const failureAction = input.recovery ? 'sign_in.recovery_code_failure' : 'sign_in.failure';
  const attempt = { row, email: user.email, ip: input.ip, now: Date.now(), failureAction };
  const ok = await guardedCheck(db, config, attempt, async () => {
    if (row === undefined || row.disabled_at !== null || row.totp_enabled_at === null) return false;
    return input.recovery
      ? useRecoveryCode(db, user.id, input.code)
      : checkTotp(db, sealer, user, input.code);
  });
  if (!ok || !row)
    throw new AppError(
      'console.sign_in_failed',
      input.recovery
        ? 'that recovery code is not right, or was already used'
        : 'that code is not right; try the newest code your app shows',
    );
  await updateUser(db, row.id, { failed_attempts: 0, locked_until: null });
  if (!input.recovery) {
    await record(db, auditOf(row, 'sign_in.success', input.ip, { second_factor: true }));
    return undefined;
  }
  const left = await recoveryCodesLeft(db, user.id);
  await record(db, auditOf(row, 'user.recovery_code_use', input.ip, { left }));
  await record(db, auditOf(row, 'sign_in.success', input.ip, { second_factor: true, recovery_code: true }));
  return left;
}
