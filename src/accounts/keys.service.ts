/** API keys: creation (the value is shown once), listing without values, revocation, and authentication of a presented key. */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { AppError } from '../errors/app-error.ts';
import type { Queryable } from '../db/types.ts';
import {
  findKeyByHash,
  findKeyById,
  insertKey,
  listKeys,
  revokeKey,
  touchKey,
  type ApiKeyWithAccount,
} from './keys.repository.ts';
import { getDomainRow } from './domains.service.ts';
import { record, type ChangeBy } from '../audit/audit.service.ts';

/** The surfaces a key may be allowed to use. */
export const SCOPES = ['email', 'forms', 'marketing'] as const;
export type Scope = (typeof SCOPES)[number];

/** How often last_used_at is written for one key at most: a busy key costs one write a minute, not one per request. */
const TOUCH_INTERVAL_MS = 60_000;
const KEY_PREFIX = 'sp_';

/** A key as listed: never its value. */
export interface ApiKeyInfo {
  id: string;
  prefix: string;
  domain: string | null;
  scopes: Scope[];
  description: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** Who created the key: `user:<id>` from the console; null from the command line. */
  created_by: string | null;
}

/** Who asks for a change, for the audit trail. */
export type KeyChangeBy = ChangeBy;

/** The identity a valid key grants to a request. */
export interface Principal {
  keyId: string;
  customerId: number;
  username: string;
  /** The domain the key belongs to, when it was created for one: mail from this key must come from that domain. */
  domain: string | null;
  scopes: ReadonlySet<Scope>;
}

/** SHA-256 of a key value, hex. Keys carry 240 random bits, so a fast hash is enough. */
export function hashKey(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Parses a comma-separated scope list, rejecting unknown scopes. */
export function parseScopes(input: string | readonly string[]): Scope[] {
  const list = (typeof input === 'string' ? input.split(',') : [...input])
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (list.length === 0)
    throw new AppError('key.invalid_scope', `give at least one scope of ${SCOPES.join(', ')}`);
  for (const s of list)
    if (!(SCOPES as readonly string[]).includes(s))
      throw new AppError('key.invalid_scope', `unknown scope "${s}"; scopes are ${SCOPES.join(', ')}`);
  return [...new Set(list)] as Scope[];
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** Creates a key for an account (optionally bound to one of its domains); returns its id and the value, which is never shown again. */
export async function createKey(
  db: Queryable,
  customerId: number,
  opts: {
    scopes: string | readonly string[];
    domain?: string;
    description?: string;
    now?: number;
    /** Recorded as the creator and in the audit trail. */
    by: KeyChangeBy;
  },
): Promise<{ id: string; key: string; prefix: string; scopes: Scope[] }> {
  const scopes = parseScopes(opts.scopes);
  const domainId = opts.domain ? (await getDomainRow(db, customerId, opts.domain)).id : null;
  const key = KEY_PREFIX + randomBytes(30).toString('base64url');
  const id = randomUUID();
  const prefix = key.slice(0, 10);
  await insertKey(db, {
    id,
    customer_id: customerId,
    domain_id: domainId,
    key_prefix: prefix,
    key_hash: hashKey(key),
    scopes: scopes.join(','),
    description: opts.description ?? '',
    created_at: opts.now ?? Date.now(),
    last_used_at: null,
    revoked_at: null,
    created_by: opts.by.actor.type === 'user' ? `user:${opts.by.actor.id}` : null,
  });
  await record(db, {
    accountId: customerId,
    actor: opts.by.actor,
    action: 'key.create',
    target: `key:${id}`,
    ip: opts.by.ip,
    detail: { prefix, scopes, description: opts.description ?? '' },
  });
  return { id, key, prefix, scopes };
}

/** Lists an account's keys without their values. */
export async function accountKeys(db: Queryable, customerId: number): Promise<ApiKeyInfo[]> {
  return (await listKeys(db, customerId)).map((row) => ({
    id: row.id,
    prefix: row.key_prefix,
    domain: row.domain,
    scopes: row.scopes.split(',') as Scope[],
    description: row.description,
    created_at: new Date(row.created_at).toISOString(),
    last_used_at: iso(row.last_used_at),
    revoked_at: iso(row.revoked_at),
    created_by: row.created_by,
  }));
}

/**
 * Revokes a key by id; revoking twice is harmless. Throws key.not_found for an unknown id, or for a key of another
 * account when `opts.customerId` is given. The revocation is recorded in the audit trail as made `by`.
 */
export async function revoke(
  db: Queryable,
  id: string,
  by: KeyChangeBy,
  opts: { customerId?: number; now?: number } = {},
): Promise<{ id: string; revoked_at: string }> {
  const now = opts.now ?? Date.now();
  const row = await findKeyById(db, id);
  if (!row || (opts.customerId !== undefined && row.customer_id !== opts.customerId))
    throw new AppError('key.not_found', `no API key with id ${id}`);
  const changed = await revokeKey(db, id, now);
  forgetKey(id);
  if (changed)
    await record(db, {
      accountId: row.customer_id,
      actor: by.actor,
      action: 'key.revoke',
      target: `key:${id}`,
      ip: by.ip,
      detail: { prefix: row.key_prefix },
    });
  if (!changed) return { id, revoked_at: new Date(row.revoked_at ?? now).toISOString() };
  return { id, revoked_at: new Date(now).toISOString() };
}

/** Authenticates a presented key value: unknown → auth.invalid_key, revoked → auth.revoked_key. Records last use (through `writer`) at most once a minute. */
export async function authenticateKey(
  db: Queryable,
  value: string,
  now = Date.now(),
  writer: Queryable = db,
): Promise<Principal> {
  const key = value.startsWith(KEY_PREFIX) ? await lookUpKey(db, hashKey(value), now) : undefined;
  if (!key) throw new AppError('auth.invalid_key', 'invalid API key');
  const { row } = key;
  if (row.revoked_at !== null) throw new AppError('auth.revoked_key', 'this API key has been revoked');
  if (row.last_used_at === null || now - row.last_used_at >= TOUCH_INTERVAL_MS) {
    await touchKey(writer, row.id, now);
    row.last_used_at = now;
  }
  return key.principal;
}

/**
 * How long a process trusts a key it has read: a key revoked by another process (the command line, another node) stops
 * working here within this time; one revoked by this process stops at once. Every request is authenticated, and the
 * look-up costs more than the rest of authentication, so a busy key is read about once a second instead of every time.
 */
export const KEY_CACHE_MS = 1_000;

/** Keys read recently, by the hash of their value (a value belongs to one database, so one map serves them all). */
const recentKeys = new LRUCache<string, { row: ApiKeyWithAccount; principal: Principal; until: number }>({
  max: 10_000,
});

async function lookUpKey(db: Queryable, hash: string, now: number) {
  const hit = recentKeys.get(hash);
  if (hit && hit.until > now) return hit;
  const row = await findKeyByHash(db, hash);
  if (!row) {
    recentKeys.delete(hash);
    return undefined;
  }
  const principal: Principal = {
    keyId: row.id,
    customerId: row.customer_id,
    username: row.username,
    domain: row.domain,
    scopes: new Set(row.scopes.split(',') as Scope[]),
  };
  const entry = { row, principal, until: now + KEY_CACHE_MS };
  recentKeys.set(hash, entry);
  return entry;
}

/** Drops a key from the recently read keys, so that a revocation made here applies to the next request. */
function forgetKey(id: string): void {
  const hashes = [...recentKeys.entries()].filter(([, entry]) => entry.row.id === id).map(([hash]) => hash);
  for (const hash of hashes) recentKeys.delete(hash);
}
