/**
 * The hosted page's check token and proof of work, free of HTTP and the database. A token is the form id, the time
 * the page was shown, the page's nonce and the proof-of-work difficulty, signed with HMAC-SHA256 under a key derived
 * from the installation's keys, so no node stores anything to issue or verify one. The proof of work is hashcash-like:
 * a number `n` such that SHA-256 of `<token>:<n>` starts with `difficulty` zero bits; checking it is one hash.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import { deriveKey } from '../../crypto/derive.ts';

/** How long a check token stays good after the page was shown. */
export const TOKEN_MAX_AGE_MS = 2 * 3600_000;

/** What a verified token says. */
export interface CheckToken {
  issuedAt: number;
  nonce: string;
  difficulty: number;
}

const keys = new WeakMap<Buffer, Buffer>();

/** The signing key of check tokens, derived once per installation key. */
export function botKey(ctx: Pick<AppContext, 'keys'>): Buffer {
  let key = keys.get(ctx.keys.tracking);
  if (!key) keys.set(ctx.keys.tracking, (key = deriveKey(ctx.keys.tracking, 'form-bot-check')));
  return key;
}

const mac = (key: Buffer, payload: string) => createHmac('sha256', key).update(payload).digest();

/** A token for a page of `formId` shown at `now`, carrying the page's `nonce`. */
export function issueCheck(
  key: Buffer,
  formId: string,
  difficulty: number,
  now: number,
  nonce: string,
): string {
  const payload = `${formId}.${now.toString(36)}.${nonce}.${difficulty}`;
  return `${Buffer.from(payload).toString('base64url')}.${mac(key, payload).toString('base64url')}`;
}

/** The token's contents when it is signed by `key` for `formId`; null when it is forged or for another form. */
export function readCheck(key: Buffer, formId: string, token: string): CheckToken | null {
  const [body, sig, extra] = token.split('.');
  if (!body || !sig || extra !== undefined || token.length > 400) return null;
  const payload = Buffer.from(body, 'base64url').toString();
  const given = Buffer.from(sig, 'base64url');
  const wanted = mac(key, payload);
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return null;
  const [id, issued, nonce, difficulty] = payload.split('.');
  if (id !== formId || !issued || !nonce || !difficulty) return null;
  return { issuedAt: parseInt(issued, 36), nonce, difficulty: Number(difficulty) };
}

/** The number of leading zero bits of a digest. */
export function leadingZeroBits(digest: Buffer): number {
  let bits = 0;
  for (const byte of digest) {
    if (byte === 0) {
      bits += 8;
      continue;
    }
    return bits + Math.clz32(byte) - 24;
  }
  return bits;
}

/** Whether `solution` (a decimal number) solves the token's challenge at `difficulty` bits. */
export function solves(token: string, solution: string, difficulty: number): boolean {
  if (!/^\d{1,16}$/.test(solution)) return false;
  return leadingZeroBits(createHash('sha256').update(`${token}:${solution}`).digest()) >= difficulty;
}
