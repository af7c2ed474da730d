/** Password hashing with node:crypto scrypt (memory-hard): `scrypt$N$r$p$salt$hash`, checked in constant time. */
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { AppError } from '../errors/app-error.ts';

const N = 32768;
const R = 8;
const P = 1;
const KEY_BYTES = 32;
/** The shortest password accepted. */
export const MIN_PASSWORD_LENGTH = 10;
/** The longest password accepted (in UTF-16 code units). */
export const MAX_PASSWORD_LENGTH = 1000;

function scrypt(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  const opts: ScryptOptions = { N: n, r, p, maxmem: 256 * n * r + 1024 * 1024 };
  return new Promise((resolve, reject) =>
    scryptCb(password.normalize('NFC'), salt, KEY_BYTES, opts, (e, k) => (e ? reject(e) : resolve(k))),
  );
}

/** Checks a new password against the rules, or throws user.password_weak. */
export function checkPasswordRules(password: string): void {
  if ([...password].length < MIN_PASSWORD_LENGTH)
    throw new AppError(
      'user.password_weak',
      `the password must be at least ${MIN_PASSWORD_LENGTH} characters long`,
    );
  if (password.length > MAX_PASSWORD_LENGTH)
    throw new AppError(
      'user.password_weak',
      `the password must be at most ${MAX_PASSWORD_LENGTH} characters long`,
    );
}

/** Hashes a password for storage; `cost` (scrypt's N) is lower only for random secrets, which need no stretching. */
export async function hashPassword(password: string, cost = N): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, cost, R, P);
  return `scrypt$${cost}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

const DUMMY = `scrypt$${N}$${R}$${P}$${Buffer.alloc(16).toString('base64url')}$${Buffer.alloc(KEY_BYTES).toString('base64url')}`;

/** True when `password` matches `stored`. With no stored hash it still spends the same time and answers false. */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = (stored ?? DUMMY).split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await scrypt(password, Buffer.from(salt, 'base64url'), Number(n), Number(r), Number(p));
  return stored !== null && key.length === expected.length && timingSafeEqual(key, expected);
}
