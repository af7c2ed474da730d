/** Encryption at rest: AES-256-GCM under the master key, with a fresh 96-bit nonce per value. */
import { createCipheriv, createDecipheriv } from 'node:crypto';
import { pooledRandomBytes } from './random-pool.ts';

const VERSION = 'v1';
const NONCE_BYTES = 12;

/** A fresh random nonce, cut from a block of random bytes drawn at once. */
const nextNonce = (): Buffer => pooledRandomBytes(NONCE_BYTES);

/** Encrypts and decrypts values stored at rest. */
export interface Sealer {
  /** Encrypts a string or bytes into a self-describing text token `v1.<nonce>.<ciphertext+tag>`. */
  seal(plain: string | Buffer, associated?: string): string;
  /** Decrypts a token made by seal; throws when it was tampered with or made under another key. */
  open(token: string, associated?: string): Buffer;
  /** Decrypts a token into UTF-8 text. */
  openText(token: string, associated?: string): string;
}

/** Builds a Sealer over a 32-byte key. `associated` binds a value to its row (for example an id) so it cannot be moved. */
export function createSealer(key: Buffer): Sealer {
  if (key.length !== 32) throw new Error('the master key must be 32 bytes');
  const seal = (plain: string | Buffer, associated?: string): string => {
    const nonce = nextNonce();
    const cipher = createCipheriv('aes-256-gcm', key, nonce);
    if (associated) cipher.setAAD(Buffer.from(associated, 'utf8'));
    const text = cipher.update(typeof plain === 'string' ? Buffer.from(plain, 'utf8') : plain);
    // Encoded in two pieces split on a multiple of three bytes (which encode the same as the whole), so that a large
    // value is not copied once more only to append the 16-byte tag.
    const cut = text.length - (text.length % 3);
    const tail = Buffer.concat([text.subarray(cut), cipher.final(), cipher.getAuthTag()]);
    return `${VERSION}.${nonce.toString('base64url')}.${text.subarray(0, cut).toString('base64url')}${tail.toString('base64url')}`;
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
    open,
    openText: (token, associated) => open(token, associated).toString('utf8'),
  };
}
