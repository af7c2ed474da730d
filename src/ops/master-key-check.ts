/** Checking that a master key decrypts what a database holds, by opening one sealed value (a domain's DKIM key). */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type SQLite from 'better-sqlite3';
import type { Config } from '../config/schema.ts';
import { createSealer } from '../crypto/sealer.ts';

/** Where the master key came from, its fingerprint, and whether it opened a sealed value of the database. */
export interface MasterKeyCheck {
  source: string;
  /** The first 16 hex digits of SHA-256 of the key: tells keys apart without revealing them. */
  fingerprint: string;
  /** `ok` when a sealed value opened, `mismatch` when it did not, `nothing-sealed` when the database holds none yet. */
  result: 'ok' | 'mismatch' | 'nothing-sealed';
}

/** Where a configuration takes its master key from. */
export function masterKeySource(config: Config): string {
  return config.masterKey ? 'SEALPOST_MASTER_KEY' : path.resolve(config.dataDir, 'master.key');
}

/** A key's fingerprint. */
export function keyFingerprint(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

/** Tries `key` on one sealed DKIM private key of an open SQLite database. */
export function checkKeyOnSqlite(sqlite: SQLite.Database, key: Buffer, source: string): MasterKeyCheck {
  const row = sqlite.prepare('select id, dkim_private_key from domains order by id limit 1').get() as
    { id: number | string; dkim_private_key: string } | undefined;
  return { source, fingerprint: keyFingerprint(key), result: row ? tryOpen(key, row) : 'nothing-sealed' };
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
