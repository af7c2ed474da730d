/**
 * Two-factor sign-in with TOTP (RFC 6238, the otpauth library): enrolment with a fresh secret shown as a QR code and an
 * otpauth URI, confirmed by a first code; the check at sign-in; turning it off; and an account's rule that makes it
 * mandatory. Secrets are sealed with the master key, bound to the user's id.
 */
import type * as OtpAuth from 'otpauth';
import type QRCodeModule from 'qrcode';
import type { Config } from '../config/schema.ts';
import type { Sealer } from '../crypto/sealer.ts';
import { guardedCheck } from './attempts.ts';
import type { Queryable } from '../db/types.ts';
import { AppError } from '../errors/app-error.ts';
import { record, type AuditActor } from '../audit/audit.service.ts';
import { findUserById, takeTotpStep, updateUser } from './users.repository.ts';
import { selectRequireTotp, upsertRequireTotp } from './account-security.repository.ts';
import type { User } from './users.service.ts';
import { onFirstUse } from '../on-first-use.ts';
import { createRecoveryCodes, dropRecoveryCodes } from './recovery-codes.service.ts';

const otpauth = onFirstUse<typeof OtpAuth>('otpauth');
const qrcode = onFirstUse<typeof QRCodeModule>('qrcode');

const ISSUER = 'Sealpost';
const PERIOD = 30;

function totpOf(email: string, secret: string): OtpAuth.TOTP {
  const { Secret, TOTP } = otpauth();
  return new TOTP({
    issuer: ISSUER,
    label: email,
    algorithm: 'SHA1',
    digits: 6,
    period: PERIOD,
    secret: Secret.fromBase32(secret),
  });
}

/** The secret being enrolled or in use, opened; undefined when the user has none. */
async function secretOf(db: Queryable, sealer: Sealer, userId: string): Promise<string | undefined> {
  const row = await findUserById(db, userId);
  return row?.totp_secret ? sealer.openText(row.totp_secret, `totp:${userId}`) : undefined;
}

/**
 * True when `code` is the user's current code (or the one before or after, for clock drift) and no code of its time step
 * or a later one was accepted before: an accepted code is used up, so a code seen over someone's shoulder, or replayed,
 * does not work a second time. The step is taken with one conditional update, so two requests racing with the same
 * code cannot both pass.
 */
export async function checkTotp(db: Queryable, sealer: Sealer, user: User, code: string): Promise<boolean> {
  const secret = await secretOf(db, sealer, user.id);
  const token = code.replace(/\s+/g, '');
  if (secret === undefined || !/^\d{6}$/.test(token)) return false;
  const now = Date.now();
  const delta = totpOf(user.email, secret).validate({ token, window: 1, timestamp: now });
  if (delta === null) return false;
  return takeTotpStep(db, user.id, Math.floor(now / 1000 / PERIOD) + delta);
}

/**
 * Checks a code of a signed-in user as a counted attempt, like a sign-in: a wrong one counts towards the lock-out, is
 * audited as `failureAction` and refused with `wrong` (console.sign_in_failed), and a locked address is refused
 * unchecked (console.locked).
 */
async function requireCountedCode(
  db: Queryable,
  config: Config,
  sealer: Sealer,
  user: User,
  { code, ip, failureAction, wrong }: { code: string; ip: string; failureAction: string; wrong: string },
): Promise<void> {
  const row = await findUserById(db, user.id);
  const attempt = { row, email: user.email, ip, now: Date.now(), failureAction };
  if (!(await guardedCheck(db, config, attempt, () => checkTotp(db, sealer, user, code))))
    throw new AppError('console.sign_in_failed', wrong);
}

/** Audits `action` taken by a user on their own two-factor set-up. */
async function recordOwn(db: Queryable, user: User, action: string, ip: string): Promise<void> {
  await record(db, {
    accountId: user.customerId,
    actor: { type: 'user', id: user.id },
    action,
    target: `user:${user.id}`,
    ip,
  });
}

/** Starts an enrolment: a fresh secret replaces any unconfirmed one. Refused while two-factor is on. */
export async function startTotpEnrolment(db: Queryable, sealer: Sealer, user: User): Promise<void> {
  if (user.totpEnabled) throw new AppError('conflict', 'two-factor authentication is already on');
  const secret = new (otpauth().Secret)({ size: 20 }).base32;
  await updateUser(db, user.id, {
    totp_secret: sealer.seal(secret, `totp:${user.id}`),
    updated_at: Date.now(),
  });
}

/** What an enrolment shows: the otpauth URI, the secret for typing in, and the QR code as an SVG data URI. */
export interface TotpEnrolment {
  uri: string;
  secret: string;
  qrDataUri: string;
}

/** The pending enrolment of a user, or undefined when none was started (or two-factor is already on). */
export async function pendingEnrolment(
  db: Queryable,
  sealer: Sealer,
  user: User,
): Promise<TotpEnrolment | undefined> {
  if (user.totpEnabled) return undefined;
  const secret = await secretOf(db, sealer, user.id);
  if (!secret) return undefined;
  const uri = totpOf(user.email, secret).toString();
  const svg = await qrcode().toString(uri, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' });
  return { uri, secret, qrDataUri: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` };
}

/** Confirms an enrolment with a first code; two-factor is on from now. Returns the new recovery codes, to show once. */
export async function confirmTotpEnrolment(
  db: Queryable,
  config: Config,
  sealer: Sealer,
  user: User,
  code: string,
  ip: string,
): Promise<string[]> {
  if (!(await pendingEnrolment(db, sealer, user))) throw new AppError('conflict', 'start the set-up first');
  await requireCountedCode(db, config, sealer, user, {
    code,
    ip,
    failureAction: 'user.totp_enable_failure',
    wrong: 'that code is not right; check the time on your phone and try the newest code',
  });
  await updateUser(db, user.id, { totp_enabled_at: Date.now(), updated_at: Date.now() });
  await recordOwn(db, user, 'user.totp_enable', ip);
  return createRecoveryCodes(db, user, ip);
}

/**
 * Makes a new set of recovery codes after a correct code from the app (counted like a sign-in), ending the old set;
 * returns the codes, to show once.
 */
export async function renewRecoveryCodes(
  db: Queryable,
  config: Config,
  sealer: Sealer,
  user: User,
  code: string,
  ip: string,
): Promise<string[]> {
  if (!user.totpEnabled) throw new AppError('conflict', 'turn on two-factor authentication first');
  await requireCountedCode(db, config, sealer, user, {
    code,
    ip,
    failureAction: 'user.recovery_codes_failure',
    wrong: 'that code is not right; try the newest code your app shows',
  });
  return createRecoveryCodes(db, user, ip);
}

/** Turns two-factor off for a user after a correct code; refused when the account requires it. */
export async function disableTotp(
  db: Queryable,
  config: Config,
  sealer: Sealer,
  user: User,
  code: string,
  ip: string,
): Promise<void> {
  if (await selectRequireTotp(db, user.customerId))
    throw new AppError(
      'console.forbidden',
      'this account requires two-factor authentication; it cannot be turned off',
    );
  await requireCountedCode(db, config, sealer, user, {
    code,
    ip,
    failureAction: 'user.totp_disable_failure',
    wrong: 'that code is not right',
  });
  await updateUser(db, user.id, {
    totp_secret: null,
    totp_enabled_at: null,
    totp_last_step: null,
    updated_at: Date.now(),
  });
  await dropRecoveryCodes(db, user.id);
  await recordOwn(db, user, 'user.totp_disable', ip);
}

/** True when the account requires two-factor sign-in. */
export async function totpRequired(db: Queryable, customerId: number): Promise<boolean> {
  return selectRequireTotp(db, customerId);
}

/** Makes two-factor mandatory for the account (or not); users without it are sent to set it up on their next page. */
export async function setTotpRequired(
  db: Queryable,
  customerId: number,
  required: boolean,
  actor: AuditActor,
  ip?: string,
): Promise<void> {
  await upsertRequireTotp(db, customerId, required, Date.now());
  await record(db, {
    accountId: customerId,
    actor,
    action: 'account.require_totp',
    target: `account:${customerId}`,
    ip,
    detail: { required },
  });
}
