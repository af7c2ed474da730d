/**
 * `sealpost move-to-postgres`: copies an embedded (SQLite) install into an empty PostgreSQL database. The target is
 * migrated first; then every table of the source (read from its schema) is copied in foreign-key order, in keyset
 * batches, each batch committed with the table's progress so an interrupted move continues where it stopped. At the end
 * row counts and a checksum per table are compared on both sides, identity counters are set past the copied ids, and
 * the progress record is dropped. Ids and sealed values are copied as they are, so the same master key opens them.
 */
import { existsSync } from 'node:fs';
import type SQLite from 'better-sqlite3';
import type pg from 'pg';
import { databaseTarget } from '../config/load.ts';
import type { Config } from '../config/schema.ts';
import { resolveMasterKey } from '../crypto/master-key.ts';
import { connect } from '../db/connect.ts';
import { sqliteDriver } from '../db/sqlite-driver.ts';
import { migrateToLatest } from '../db/migrate.ts';
import {
  SchemaMismatch,
  planTables,
  sourceLeaseCurrent,
  sourceMigrations,
  targetMigrations,
  type TableSpec,
} from '../db/move/schema.ts';
import {
  advanceCounters,
  beginProgress,
  copyTable,
  endProgress,
  markCopied,
  moveInProgress,
  nonEmptyTables,
  readProgress,
  sourceCount,
} from '../db/move/copy.ts';
import { sourceChecksum, targetChecksum } from '../db/move/checksum.ts';
import { textClient } from '../db/move/text-client.ts';
import { checkKeyOnSqlite, masterKeySource, type MasterKeyCheck } from './master-key-check.ts';
import { OpsError } from './ops-error.ts';
import { redactUrl } from './redact-url.ts';

/** What the progress display is told: the phase, the table, and rows done of its total. */
export interface MoveProgress {
  phase: 'copy' | 'verify';
  table: string;
  /** 1-based position of the table and how many there are. */
  index: number;
  tables: number;
  done: number;
  total: number;
}

/** Options of a move. */
export interface MoveOptions {
  /** Rows per batch (and per transaction); 5,000 by default. */
  batchSize?: number;
  /** Move even though the embedded service seems to be running. */
  force?: boolean;
  onProgress?: (p: MoveProgress) => void;
  /** Stops the copy after the batch in flight; a later run continues from there. */
  signal?: AbortSignal;
}

/** One table's result. */
export interface MovedTable {
  table: string;
  rows: number;
  checksum: string;
}

/** What a move reports. */
export interface MoveReport {
  status: 'moved' | 'interrupted';
  /** Whether this run continued an earlier, interrupted one. */
  resumed: boolean;
  target: string;
  tables: MovedTable[];
  rows: number;
  ms: number;
  masterKey: MasterKeyCheck;
}

/** Copies the configured embedded database into the PostgreSQL database at `url`. */
export async function moveToPostgres(
  config: Config,
  url: string,
  opts: MoveOptions = {},
): Promise<MoveReport> {
  const started = Date.now();
  const from = databaseTarget(config);
  if (from.dialect === 'postgres') throw new OpsError('the configured database is already PostgreSQL');
  if (from.file === ':memory:') throw new OpsError('an in-memory database cannot be moved');
  if (!/^postgres(ql)?:\/\//.test(url)) throw new OpsError('--to must be a postgres:// or postgresql:// URL');
  if (!existsSync(from.file)) throw new OpsError(`${from.file} does not exist`);
  const key = resolveMasterKey(config, from);
  const source = new (sqliteDriver())(from.file, { readonly: true, fileMustExist: true });
  source.pragma('busy_timeout = 10000');
  let target: pg.Client | undefined;
  try {
    if (!opts.force && sourceLeaseCurrent(source))
      throw new OpsError(
        'a running Sealpost holds the embedded database (its scheduler lease is current); stop it first, or pass --force',
      );
    const masterKey = checkKeyOnSqlite(source, key, masterKeySource(config));
    if (masterKey.result === 'mismatch')
      throw new OpsError(`the master key (${masterKey.source}) does not decrypt the embedded database`);
    await migrateTarget(url);
    target = await textClient(url);
    const specs = await checkSchemas(source, target);
    const resumed = await moveInProgress(target);
    if (!resumed) {
      const filled = await nonEmptyTables(target, specs);
      if (filled.length)
        throw new OpsError(
          `the PostgreSQL database is not empty (${filled.slice(0, 5).join(', ')}${filled.length > 5 ? ', …' : ''} hold rows); move into a new, empty database`,
        );
      await beginProgress(target);
    }
    const base = { resumed, target: redactUrl(url), masterKey };
    const copied = await copyAll(source, target, specs, opts);
    if (!copied) return { ...base, status: 'interrupted', tables: [], rows: 0, ms: Date.now() - started };
    const tables = await verifyAll(source, target, specs, opts);
    for (const spec of specs) await advanceCounters(target, spec);
    await endProgress(target);
    const rows = tables.reduce((n, t) => n + t.rows, 0);
    return { ...base, status: 'moved', tables, rows, ms: Date.now() - started };
  } catch (err) {
    if (err instanceof OpsError) throw err;
    if (err instanceof SchemaMismatch) throw new OpsError(`the schemas differ: ${err.message}`);
    throw new OpsError(`the move failed: ${(err as Error).message}`);
  } finally {
    source.close();
    await target?.end();
  }
}

/** Applies the migrations to the target, so both schemas are built by the same migration list. */
async function migrateTarget(url: string): Promise<void> {
  let database;
  try {
    database = await connect({ dialect: 'postgres', url }, { poolSize: 1 });
  } catch (err) {
    throw new OpsError(`cannot reach PostgreSQL at ${redactUrl(url)}: ${(err as Error).message}`);
  }
  try {
    await migrateToLatest(database);
  } finally {
    await database.close();
  }
}

/** Both databases must be at the same migration; then the tables are planned from the source's schema. */
async function checkSchemas(source: SQLite.Database, target: pg.Client): Promise<TableSpec[]> {
  const have = sourceMigrations(source);
  if (have.length === 0) throw new OpsError('the embedded database is not a Sealpost database');
  const want = await targetMigrations(target);
  if (have.join() !== want.join())
    throw new OpsError(
      `the embedded database is at migration ${have.at(-1)} but this version's schema is ${want.at(-1)}; run \`sealpost migrate\` on the embedded install first`,
    );
  return planTables(source, target);
}

/** Copies every table not yet copied; false when the signal stopped it first. */
async function copyAll(
  source: SQLite.Database,
  target: pg.Client,
  specs: TableSpec[],
  opts: MoveOptions,
): Promise<boolean> {
  const progress = await readProgress(target);
  for (const [i, spec] of specs.entries()) {
    const total = sourceCount(source, spec);
    const at = progress.get(spec.name);
    const tell = (done: number) =>
      opts.onProgress?.({ phase: 'copy', table: spec.name, index: i + 1, tables: specs.length, done, total });
    if (at?.copied) {
      tell(at.rows);
      continue;
    }
    if (opts.signal?.aborted) return false;
    tell(at?.rows ?? 0);
    const r = await copyTable(source, target, spec, at, opts.batchSize ?? 5000, (done) => {
      tell(done);
      return !opts.signal?.aborted;
    });
    if (!r.finished) return false;
    await markCopied(target, spec.name, r.rows);
  }
  return true;
}

/** Compares row counts and checksums of every table; throws naming each table that differs. */
async function verifyAll(
  source: SQLite.Database,
  target: pg.Client,
  specs: TableSpec[],
  opts: MoveOptions,
): Promise<MovedTable[]> {
  const out: MovedTable[] = [];
  const wrong: string[] = [];
  for (const [i, spec] of specs.entries()) {
    const here = sourceChecksum(source, spec);
    opts.onProgress?.({
      phase: 'verify',
      table: spec.name,
      index: i + 1,
      tables: specs.length,
      done: 0,
      total: here.rows,
    });
    const there = await targetChecksum(target, spec);
    opts.onProgress?.({
      phase: 'verify',
      table: spec.name,
      index: i + 1,
      tables: specs.length,
      done: there.rows,
      total: here.rows,
    });
    if (here.rows !== there.rows)
      wrong.push(`${spec.name}: ${here.rows} rows embedded, ${there.rows} in PostgreSQL`);
    else if (here.checksum !== there.checksum) wrong.push(`${spec.name}: checksums differ`);
    out.push({ table: spec.name, rows: here.rows, checksum: here.checksum });
  }
  if (wrong.length)
    throw new OpsError(
      `verification failed (${wrong.join('; ')}); the embedded database changed during the move or the copy is damaged: drop the PostgreSQL database and move again`,
    );
  return out;
}
