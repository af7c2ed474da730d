/**
 * Attachments of a message being accepted, held as they arrived: the base64 text of an HTTP body (its pieces, never
 * joined) or the bytes an SMTP message was parsed into. The message carries a short stand-in string for each; the
 * stand-in passes validation as a string, the sealer takes the bytes behind it, and they are let go once sealed or
 * when the request ends.
 */
import { createHash, randomUUID } from 'node:crypto';

/** Starts every stand-in. A NUL cannot start base64, so a client's own string is never taken for one. */
const PREFIX = '\u0000held-base64:';
const EMPTY = Buffer.alloc(0);
/** Pieces of base64 (JSON string text) or of the bytes themselves, and how many bytes they make. */
interface Held {
  base64: boolean;
  pieces: Buffer[];
  length: number;
}
const held = new Map<string, Held>();

function hold(entry: Held): string {
  const standIn = `${PREFIX}${randomUUID()}`;
  held.set(standIn, entry);
  return standIn;
}

/**
 * Holds one attachment's base64, as the pieces of JSON string text it came in (canonical base64, slashes possibly
 * escaped as `\/`) and the number of bytes it decodes to; returns the stand-in that names it.
 */
export const holdBase64 = (pieces: Buffer[], length: number): string =>
  hold({ base64: true, pieces, length });

/** Holds one attachment's bytes; returns the stand-in that names them. */
export const holdBytes = (bytes: Buffer): string =>
  hold({ base64: false, pieces: [bytes], length: bytes.length });

/** True for a string that stands for held base64 (still held or already let go). */
export const isStandIn = (value: string): boolean => value.startsWith(PREFIX);

/** True while a stand-in's base64 is held. */
export const isHeld = (value: string): boolean => held.has(value);

function heldOf(standIn: string): Held {
  const entry = held.get(standIn);
  if (!entry) throw new Error('the held attachment was let go before it was sealed');
  return entry;
}

/**
 * Takes the bytes a stand-in names, decoded a piece at a time: each piece of base64 is let go once decoded, so the
 * sealed value grows as the base64 shrinks. Throws when they were let go (the request ended) or already taken.
 */
export function takeHeldBytes(standIn: string): Generator<Buffer> {
  const entry = heldOf(standIn);
  held.delete(standIn);
  return bytesOf(entry, true);
}

/** The number of bytes a stand-in names. */
export const heldLength = (standIn: string): number => heldOf(standIn).length;

/** Lets the base64 of stand-ins go (each may already be gone). */
export function letGo(standIns: Iterable<string>): void {
  for (const s of standIns) held.delete(s);
}

/** Strings of a body longer than this (in bytes of JSON text) may be held. */
export const LONG_STRING = 64 * 1024;

/**
 * A JSON.stringify replacer for hashing a request: an attachment's content over LONG_STRING, held or given as a
 * string, becomes a digest of its bytes, so the same request hashes the same whichever way its body was read.
 */
export function digestStandIns(key: string, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const entry = held.get(value);
  if (!entry && !(key === 'content' && value.length > LONG_STRING)) return value;
  const hash = createHash('sha256');
  for (const b of entry ? bytesOf(entry, false) : [Buffer.from(value, 'base64')]) hash.update(b);
  return `sha256:${hash.digest('hex')}`;
}

/**
 * A piece of a string's JSON text with `\/` read as `/`, after a backslash left over from the piece before when
 * `pending`; `chars` is null when the piece holds any other escape. `pending` is true when it ends in a backslash.
 */
export function unescapeSlashes(text: string, pending: boolean): { chars: string | null; pending: boolean } {
  let t = pending ? `\\${text}` : text;
  if (!t.includes('\\')) return { chars: t, pending: false };
  const trailing = t.endsWith('\\');
  if (trailing) t = t.slice(0, -1);
  const chars = t.replaceAll('\\/', '/');
  return { chars: chars.includes('\\') ? null : chars, pending: trailing };
}

/** The bytes held, decoded a piece at a time when they are base64; `consume` empties the pieces as it goes. */
function* bytesOf({ base64, pieces: raw }: Held, consume: boolean): Generator<Buffer> {
  if (!base64) {
    for (let i = 0; i < raw.length; i++) {
      const piece = raw[i]!;
      if (consume) raw[i] = EMPTY;
      yield piece;
    }
    return;
  }
  let carry = '';
  let pending = false;
  for (let i = 0; i < raw.length; i++) {
    const text = unescapeSlashes(raw[i]!.toString('latin1'), pending);
    if (consume) raw[i] = EMPTY;
    pending = text.pending;
    const chars = carry + (text.chars ?? '');
    const cut = chars.length - (chars.length % 4);
    if (cut > 0) yield Buffer.from(chars.slice(0, cut), 'base64');
    carry = chars.slice(cut);
  }
  if (carry) yield Buffer.from(carry, 'base64');
}

/** How many attachments are held now, across requests. */
export const heldCount = (): number => held.size;
