/**
 * One-time recovery codes for two-factor sign-in, for when the phone with the authenticator app is lost: a set of ten
 * is made when two-factor is turned on (and again on request, which ends the old set), shown once, and kept only as
 * salted scrypt hashes (passwords.ts). Each code signs in once, in place of the app's code. A row also keeps a code's
 * first two characters, so a typed code costs one check rather than one per code; the other 40 random bits stand
 * behind the hash and the sign-in lock-out.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Queryable } from '../db/types.ts';
import { record } from '../audit/audit.service.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import {
  countUnusedRecoveryCodes,
  deleteRecoveryCodes,
  replaceRecoveryCodes,
  selectUnusedRecoveryCodes,
  takeRecoveryCode,
} from './recovery-codes.repository.ts';
import type { User } from './users.service.ts';

/** How many codes a set has. */
export const RECOVERY_CODE_COUNT = 10;

/** Crockford's base32 alphabet: no i, l, o or u, so a code read aloud or written down is not misread. */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const LENGTH = 10;
/** How many leading characters find a code's row. */
const LOOKUP = 2;
/**
 * scrypt's N for codes: 40 random bits need no stretching against guessing (2^40 checks at a millisecond each is
 * thousands of CPU-years), unlike a password; a password's N would cost ten times its sign-in check to make a set.
 */
const CODE_COST = 1024;
/** A hash of no code, checked when no row begins like the typed one, so the time taken does not tell. */
let dummy: Promise<string> | undefined;

/** A fresh code, `xxxxx-xxxxx` (50 random bits). */
function newCode(): string {
  const chars = [...randomBytes(LENGTH)].map((b) => ALPHABET[b & 31]!).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/** A code as typed, in its stored form: case, spaces and dashes ignored, o read as 0 and i or l as 1; '' when it cannot be one. */
export function normalizeRecoveryCode(typed: string): string {
  const code = typed
    .toLowerCase()
    .replace(/[\s-]+/g, '')
    .replace(/o/g, '0')
    .replace(/[il]/g, '1');
  return code.length === LENGTH && [...code].every((ch) => ALPHABET.includes(ch)) ? code : '';
}

/**
 * Makes a new set of codes for the user, ending any set before it, and records `user.recovery_codes_create`;
 * returns the codes, which are not kept anywhere and must be shown to the user now.
 */
export async function createRecoveryCodes(db: Queryable, user: User, ip: string | null): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newCode);
  const rows = await Promise.all(
    codes.map(async (code) => {
      const plain = normalizeRecoveryCode(code);
      return {
        id: randomUUID(),
        lookup: plain.slice(0, LOOKUP),
        code_hash: await hashPassword(plain, CODE_COST),
      };
    }),
  );
  const replaced = await countUnusedRecoveryCodes(db, user.id);
  await replaceRecoveryCodes(db, user.id, rows, Date.now());
  await record(db, {
    accountId: user.customerId,
    actor: { type: 'user', id: user.id },
    action: 'user.recovery_codes_create',
    target: `user:${user.id}`,
    ip,
    detail: { count: codes.length, unused_replaced: replaced },
  });
  return codes;
}

/** How many of the user's recovery codes still work. */
export async function recoveryCodesLeft(db: Queryable, userId: string): Promise<number> {
  return countUnusedRecoveryCodes(db, userId);
}

/**
 * True when `typed` is one of the user's unused codes, which is then used up (one conditional update, so two requests
 * racing with the same code cannot both pass). A string that cannot be a code is refused without hashing.
 */
export async function useRecoveryCode(db: Queryable, userId: string, typed: string): Promise<boolean> {
  const code = normalizeRecoveryCode(typed);
  if (!code) return false;
  const unused = await selectUnusedRecoveryCodes(db, userId, code.slice(0, LOOKUP));
  // With no row to check, a dummy check spends the same time, so timing does not tell which beginnings exist.
  if (unused.length === 0) {
    await verifyPassword(code, await (dummy ??= hashPassword(randomBytes(8).toString('hex'), CODE_COST)));
    return false;
  }
  const matches = await Promise.all(unused.map((row) => verifyPassword(code, row.code_hash)));
  const match = unused.find((_, i) => matches[i]);
  return match !== undefined && takeRecoveryCode(db, match.id, Date.now());
}

/** Removes the user's codes (two-factor turned off: they would otherwise outlive it). */
export async function dropRecoveryCodes(db: Queryable, userId: string): Promise<void> {
  await deleteRecoveryCodes(db, userId);
}
