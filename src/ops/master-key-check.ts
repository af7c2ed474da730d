/**
 * Checking that a master key decrypts what a database holds: the value sealed at the first start (`master_key_check`),
 * or, in a database older than that value, a domain's sealed DKIM key.
 */
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import type SQLite from 'better-sqlite3';
import type { Config } from '../config/schema.ts';
import { createSealer } from '../crypto/sealer.ts';
import type { Queryable } from '../db/types.ts';
import { firstSealedDomain } from '../accounts/domains.repository.ts';
import { insertKeyCheck, readKeyCheck } from './master-key-check.repository.ts';

/** The associated data of the check value: it opens nowhere else, and nothing else opens as it. */
const CHECK_AAD = 'master-key-check';

/** Where the master key came from, its fingerprint, and whether it opened a sealed value of the database. */
export interface MasterKeyCheck {
  source: string;
  /** The first 16 hex digits of SHA-256 of the key: tells keys apart without revealing them. */
  fingerprint: string;
  /** `ok` when a sealed value opened, `mismatch` when it did not, `nothing-sealed` when the database holds none yet. */
  result: 'ok' | 'mismatch' | 'nothing-sealed';
  /** The fingerprint of the key that sealed the check value, when the database has one. */
  sealedBy?: string;
}

/** Where a configuration takes its master key from. */
export function masterKeySource(config: Config): string {
  return config.masterKey ? 'SEALPOST_MASTER_KEY' : path.resolve(config.dataDir, 'master.key');
}

/** A key's fingerprint. */
export function keyFingerprint(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

/** Tries `key` on the check value, else on one sealed DKIM private key, of an open SQLite database. */
export function checkKeyOnSqlite(sqlite: SQLite.Database, key: Buffer, source: string): MasterKeyCheck {
  const fingerprint = keyFingerprint(key);
  const hasCheck = sqlite
    .prepare("select 1 from sqlite_master where type = 'table' and name = 'master_key_check'")
    .get();
  const check = hasCheck
    ? (sqlite.prepare('select fingerprint, sealed from master_key_check where id = 1').get() as
        { fingerprint: string; sealed: string } | undefined)
    : undefined;
  if (check)
    return {
      source,
      fingerprint,
      result: opensCheck(key, check.sealed) ? 'ok' : 'mismatch',
      sealedBy: check.fingerprint,
    };
  const row = sqlite.prepare('select id, dkim_private_key from domains order by id limit 1').get() as
    { id: number | string; dkim_private_key: string } | undefined;
  return { source, fingerprint, result: row ? tryOpen(key, row) : 'nothing-sealed' };
}

/**
 * Tries `key` on what the database holds. With `record`, a database that has no check value yet gets one sealed with
 * `key` (once the older sealed data, if any, opened with it), so every later start is checked whatever it stores.
 */
export async function checkKeyOnDatabase(
  db: Queryable,
  key: Buffer,
  source: string,
  opts: { record?: boolean } = {},
): Promise<MasterKeyCheck> {
  const fingerprint = keyFingerprint(key);
  let check = await readKeyCheck(db);
  if (!check) {
    const domain = await firstSealedDomain(db);
    if (domain && tryOpen(key, domain) === 'mismatch') return { source, fingerprint, result: 'mismatch' };
    if (!opts.record) return { source, fingerprint, result: domain ? 'ok' : 'nothing-sealed' };
    const sealed = createSealer(key).seal(randomBytes(16), CHECK_AAD);
    await insertKeyCheck(db, fingerprint, sealed);
    // Another node may have written its own first: what counts is the value stored.
    check = (await readKeyCheck(db))!;
  }
  const result = opensCheck(key, check.sealed) ? 'ok' : 'mismatch';
  return { source, fingerprint, result, sealedBy: check.fingerprint };
}

function opensCheck(key: Buffer, sealed: string): boolean {
  try {
    createSealer(key).open(sealed, CHECK_AAD);
    return true;
  } catch {
    return false;
  }
}

/** The one line that refuses a key, naming the key that sealed the data when it is known. */
export function mismatchLine(check: MasterKeyCheck): string {
  const expected = check.sealedBy ? ` (it was sealed with the key of fingerprint ${check.sealedBy})` : '';
  return (
    `the master key (${check.source}, fingerprint ${check.fingerprint}) does not open the data already stored` +
    `${expected}: start with the key the data was sealed with (docs/operations.md, "The master key")`
  );
}

/** Tries `key` on a row read from any database. */
export function tryOpen(
  key: Buffer,
  row: { id: number | string; dkim_private_key: string },
): 'ok' | 'mismatch' {
  try {
    createSealer(key).open(row.dkim_private_key, `dkim:${row.id}`);
    return 'ok';
  } catch {
    return 'mismatch';
  }
}
