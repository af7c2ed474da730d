/** Encryption at rest: AES-256-GCM under the master key, with a fresh 96-bit nonce per value. */
import { createCipheriv, createDecipheriv } from 'node:crypto';
import { pooledRandomBytes } from './random-pool.ts';

const VERSION = 'v1';
const NONCE_BYTES = 12;
/** Bytes encrypted and encoded at a time by sealPieces (a multiple of 3, so most runs carry nothing over). */
const PIECE_BYTES = 3 * 21_846;

/** A fresh random nonce, cut from a block of random bytes drawn at once. */
const nextNonce = (): Buffer => pooledRandomBytes(NONCE_BYTES);

/** Encrypts and decrypts values stored at rest. */
export interface Sealer {
  /** Encrypts a string or bytes into a self-describing text token `v1.<nonce>.<ciphertext+tag>`. */
  seal(plain: string | Buffer, associated?: string): string;
  /**
   * Seals the concatenation of `pieces` into the same token as seal would, encrypting and encoding a few kilobytes at a
   * time: a large value is never held whole as plaintext or ciphertext, only as the token. Each piece is asked for as
   * it is needed, so a caller may make it on the fly. A caller that knows the plaintext's length gives it: a large
   * token is then written into one buffer and made a string outside the JavaScript heap, leaving no pieces behind.
   */
  sealPieces(pieces: Iterable<Buffer>, associated?: string, plainLength?: number): string;
  /** Decrypts a token made by seal; throws when it was tampered with or made under another key. */
  open(token: string, associated?: string): Buffer;
  /** Decrypts a token into UTF-8 text. */
  openText(token: string, associated?: string): string;
}

/** Tokens at least this long are written into one buffer when their length is known in advance. */
const BUFFERED_TOKEN = 1024 * 1024;

/** Collects a token's text: as strings joined at the end, or written into a buffer of the length it will have. */
function tokenSink(
  prefix: string,
  plainLength: number | undefined,
): { add(text: string): void; token(): string } {
  const length = plainLength === undefined ? 0 : prefix.length + Math.ceil(((plainLength + 16) * 4) / 3);
  if (length < BUFFERED_TOKEN) {
    const out = [prefix];
    return { add: (text) => out.push(text), token: () => out.join('') };
  }
  const buffer = Buffer.allocUnsafe(length);
  let at = buffer.write(prefix, 0, 'latin1');
  return {
    add: (text) => {
      if (at + text.length > length)
        throw new Error('the sealed value is longer than its plaintext length said');
      at += buffer.write(text, at, 'latin1');
    },
    token: () => {
      if (at !== length) throw new Error('the sealed value is shorter than its plaintext length said');
      return buffer.toString('latin1');
    },
  };
}

/** Builds a Sealer over a 32-byte key. `associated` binds a value to its row (for example an id) so it cannot be moved. */
export function createSealer(key: Buffer): Sealer {
  if (key.length !== 32) throw new Error('the master key must be 32 bytes');
  /** A cipher under a fresh nonce, and the token's text before its ciphertext. */
  const start = (associated: string | undefined) => {
    const nonce = nextNonce();
    const cipher = createCipheriv('aes-256-gcm', key, nonce);
    if (associated) cipher.setAAD(Buffer.from(associated, 'utf8'));
    return { cipher, prefix: `${VERSION}.${nonce.toString('base64url')}.` };
  };
  const sealPieces = (pieces: Iterable<Buffer>, associated?: string, plainLength?: number): string => {
    const { cipher, prefix } = start(associated);
    const sink = tokenSink(prefix, plainLength);
    // Ciphertext is encoded in runs of whole 3-byte groups (which encode the same as the whole); the 0-2 bytes left
    // over wait for the next run.
    let carry = Buffer.alloc(0);
    const encode = (bytes: Buffer) => {
      const run = carry.length > 0 ? Buffer.concat([carry, bytes]) : bytes;
      const cut = run.length - (run.length % 3);
      if (cut > 0) sink.add(run.toString('base64url', 0, cut));
      carry = Buffer.from(run.subarray(cut));
    };
    for (const piece of pieces)
      for (let at = 0; at < piece.length; at += PIECE_BYTES)
        encode(cipher.update(piece.subarray(at, at + PIECE_BYTES)));
    encode(Buffer.concat([cipher.final(), cipher.getAuthTag()]));
    sink.add(carry.toString('base64url'));
    return sink.token();
  };
  const seal = (plain: string | Buffer, associated?: string): string => {
    const bytes = typeof plain === 'string' ? Buffer.from(plain, 'utf8') : plain;
    if (bytes.length > PIECE_BYTES) return sealPieces([bytes], associated, bytes.length);
    // A small value (most are) in one run: the same token, without the closures a run of pieces needs.
    const { cipher, prefix } = start(associated);
    return (
      prefix +
      Buffer.concat([cipher.update(bytes), cipher.final(), cipher.getAuthTag()]).toString('base64url')
    );
  };
  const open = (token: string, associated?: string): Buffer => {
    const [version, nonceText, bodyText] = token.split('.');
    if (version !== VERSION || !nonceText || !bodyText) throw new Error('not a sealed value');
    const body = Buffer.from(bodyText, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonceText, 'base64url'));
    if (associated) decipher.setAAD(Buffer.from(associated, 'utf8'));
    decipher.setAuthTag(body.subarray(body.length - 16));
    return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]);
  };
  return {
    seal,
    sealPieces,
    open,
    openText: (token, associated) => open(token, associated).toString('utf8'),
  };
}
