/**
 * Backup and restore of the embedded (SQLite) database. A backup uses SQLite's online backup API through its own
 * connection, so the service keeps running and writing meanwhile; the copy is one consistent snapshot. The result is
 * checked (integrity, schema version, and that the master key opens a sealed value) before it is reported. A restore
 * checks the same of the backup, refuses while a service holds the scheduler lease, keeps the replaced database aside
 * and swaps the file in with a rename.
 */
import { chmodSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import type SQLite from 'better-sqlite3';
import { databaseTarget } from '../config/load.ts';
import type { Config } from '../config/schema.ts';
import { resolveMasterKey } from '../crypto/master-key.ts';
import { sqliteDriver } from '../db/sqlite-driver.ts';
import { checkKeyOnSqlite, masterKeySource, type MasterKeyCheck } from './master-key-check.ts';
import { OpsError } from './ops-error.ts';

/** What a backup or a restore reports. */
export interface BackupReport {
  file: string;
  bytes: number;
  ms: number;
  /** The last migration applied in the copied database. */
  schema: string | null;
  masterKey: MasterKeyCheck;
}

/** How to back up PostgreSQL, given when backup or restore is asked of it. */
export const PG_DUMP_ADVICE =
  'the database is PostgreSQL: back it up with `pg_dump --format=custom --file=sealpost.dump "$SEALPOST_DATABASE_URL"` and restore with `pg_restore --clean --if-exists --no-owner --dbname="$SEALPOST_DATABASE_URL" sealpost.dump` (see docs/operations.md); keep SEALPOST_MASTER_KEY with it';

/** Copies the embedded database to `out` while the service may be running, then checks the copy. */
export async function backupDatabase(
  config: Config,
  out: string,
  onProgress?: (done: number, total: number) => void,
): Promise<BackupReport> {
  const source = sqliteFile(config);
  const dest = path.resolve(out);
  if (dest === source) throw new OpsError('--out must not be the database itself');
  if (existsSync(dest)) throw new OpsError(`${dest} already exists; choose another --out`);
  if (!existsSync(path.dirname(dest)))
    throw new OpsError(`the directory ${path.dirname(dest)} does not exist`);
  const key = resolveMasterKey(config, databaseTarget(config), undefined, { generate: false });
  const started = Date.now();
  const db = openSqlite(source, true);
  try {
    // The first step copies 100 pages; every later one copies the rest at once. A step is one read snapshot, so writers
    // of the running service never force it to start over, and WAL lets them go on meanwhile.
    await db.backup(dest, {
      progress: ({ totalPages, remainingPages }) => {
        onProgress?.(totalPages - remainingPages, totalPages);
        return 0x7fffffff;
      },
    });
  } catch (err) {
    rmSync(dest, { force: true });
    throw new OpsError(`backup failed: ${(err as Error).message}`);
  } finally {
    db.close();
  }
  ownFile(dest);
  const checked = inspect(dest, key, masterKeySource(config));
  return { file: dest, bytes: statSync(dest).size, ms: Date.now() - started, ...checked };
}

/** Replaces the embedded database with a backup; the database it replaces is kept as `<file>.before-restore-<time>`. */
export async function restoreDatabase(
  config: Config,
  from: string,
  opts: { force?: boolean } = {},
): Promise<BackupReport & { previous?: string }> {
  const target = sqliteFile(config);
  const src = path.resolve(from);
  if (!existsSync(src)) throw new OpsError(`${src} does not exist`);
  const key = resolveMasterKey(config, databaseTarget(config), undefined, { generate: false });
  const checked = inspect(src, key, masterKeySource(config));
  if (checked.masterKey.result === 'mismatch')
    throw new OpsError(
      `the master key (${checked.masterKey.source}, fingerprint ${checked.masterKey.fingerprint}) does not decrypt this backup; put the key it was made with in place first`,
    );
  if (existsSync(target) && !opts.force) refuseWhileRunning(target);
  const started = Date.now();
  mkdirSync(path.dirname(target), { recursive: true });
  const temp = `${target}.restoring`;
  rmSync(temp, { force: true });
  const db = openSqlite(src, true);
  try {
    await db.backup(temp, { progress: () => 0x7fffffff });
  } finally {
    db.close();
  }
  ownFile(temp);
  let previous: string | undefined;
  if (existsSync(target)) {
    previous = `${target}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    renameSync(target, previous);
  }
  for (const suffix of ['-wal', '-shm']) rmSync(target + suffix, { force: true });
  renameSync(temp, target);
  return { file: target, bytes: statSync(target).size, ms: Date.now() - started, ...checked, previous };
}

/**
 * Makes a copied database one file readable by its owner only: a copy of a WAL database is marked WAL too, and every
 * reader would then leave `-wal` and `-shm` files beside it. The service turns WAL on again when it opens the file.
 */
function ownFile(file: string): void {
  chmodSync(file, 0o600);
  const db = openSqlite(file, false);
  try {
    db.pragma('journal_mode = DELETE');
  } finally {
    db.close();
  }
  for (const suffix of ['-wal', '-shm']) rmSync(file + suffix, { force: true });
}

/** The embedded database file, or an OpsError with the pg_dump way for PostgreSQL. */
function sqliteFile(config: Config): string {
  const target = databaseTarget(config);
  if (target.dialect === 'postgres') throw new OpsError(PG_DUMP_ADVICE);
  if (target.file === ':memory:') throw new OpsError('an in-memory database cannot be backed up or restored');
  return target.file;
}

function openSqlite(file: string, readonly: boolean): SQLite.Database {
  if (readonly && !existsSync(file)) throw new OpsError(`${file} does not exist`);
  const Driver = sqliteDriver();
  const db = new Driver(file, { readonly, fileMustExist: readonly });
  db.pragma('busy_timeout = 10000');
  return db;
}

/** Integrity, schema version and master key of a database file. */
function inspect(
  file: string,
  key: Buffer,
  source: string,
): { schema: string | null; masterKey: MasterKeyCheck } {
  let db: SQLite.Database;
  try {
    db = openSqlite(file, true);
  } catch (err) {
    throw new OpsError(`${file} cannot be opened as a SQLite database: ${(err as Error).message}`);
  }
  try {
    const check = db.pragma('quick_check', { simple: true }) as string;
    if (check !== 'ok') throw new OpsError(`${file} is damaged: ${check}`);
    const hasSchema = db
      .prepare("select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'")
      .get();
    if (!hasSchema) throw new OpsError(`${file} is not a Sealpost database (no migration table)`);
    const last = db.prepare('select name from kysely_migration order by name desc limit 1').get() as
      { name: string } | undefined;
    return { schema: last?.name ?? null, masterKey: checkKeyOnSqlite(db, key, source) };
  } catch (err) {
    if (err instanceof OpsError) throw err;
    throw new OpsError(`${file} cannot be read as a SQLite database: ${(err as Error).message}`);
  } finally {
    db.close();
  }
}

/** Refuses when a running service holds the scheduler lease of the database at `file`. */
function refuseWhileRunning(file: string): void {
  const db = openSqlite(file, true);
  try {
    const row = db.prepare("select lease_until from leases where name = 'scheduler'").get() as
      { lease_until: number } | undefined;
    if (row && Number(row.lease_until) > Date.now())
      throw new OpsError(
        'a running Sealpost holds this database (its scheduler lease is current); stop it first, or pass --force',
      );
  } catch (err) {
    if (err instanceof OpsError) throw err;
  } finally {
    db.close();
  }
}
