/**
 * DKIM private keys as parsed key objects, kept per process. Signing with a PEM text parses it on every message, which
 * costs more than the RSA signature itself; a parsed key is reused for every message of its domain. Entries are keyed
 * by the sealed key as stored, so a domain whose key changes gets a new entry, and the cache is bounded.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';

const MAX_KEYS = 1000;
const keys = new Map<string, KeyObject>();

/** The parsed key of a stored (sealed) DKIM key; `open` unseals it to PEM when it is not cached yet. */
export function dkimKeyObject(sealed: string, open: () => string): KeyObject {
  const cached = keys.get(sealed);
  if (cached) return cached;
  const key = createPrivateKey(open());
  if (keys.size >= MAX_KEYS) keys.delete(keys.keys().next().value!);
  keys.set(sealed, key);
  return key;
}
