/**
 * DKIM private keys as parsed key objects, kept per process. Signing with a PEM text parses it on every message, which
 * costs more than the RSA signature itself; a parsed key is reused for every message of its domain. Entries are keyed
 * by the sealed key as stored, so a domain whose key changes gets a new entry, and the cache is bounded.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { DkimKey } from './model.ts';

const keys = new LRUCache<string, KeyObject>({ max: 1000 });

/** The parsed key of a stored (sealed) DKIM key; `open` unseals it to PEM when it is not cached yet. */
export function dkimKeyObject(sealed: string, open: () => string): KeyObject {
  let key = keys.get(sealed);
  if (!key) keys.set(sealed, (key = createPrivateKey(open())));
  return key;
}

/** A domain's DKIM columns as stored: its first key, and the Ed25519 key of a domain that signs with both. */
export interface StoredDkimKeys {
  id: string;
  name: string;
  dkim_selector: string;
  dkim_private_key: string;
  dkim2_selector: string | null;
  dkim2_private_key: string | null;
}

/** The keys a domain's mail is signed with, first key first; `open(sealed, second)` unseals one of them to PEM. */
export function domainSigningKeys(
  domain: StoredDkimKeys,
  open: (sealed: string, second: boolean) => string,
): DkimKey[] {
  const keys: DkimKey[] = [
    {
      domainName: domain.name,
      keySelector: domain.dkim_selector,
      privateKey: dkimKeyObject(domain.dkim_private_key, () => open(domain.dkim_private_key, false)),
    },
  ];
  const second = domain.dkim2_private_key;
  if (second && domain.dkim2_selector)
    keys.push({
      domainName: domain.name,
      keySelector: domain.dkim2_selector,
      privateKey: dkimKeyObject(second, () => open(second, true)),
    });
  return keys;
}
