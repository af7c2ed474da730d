/** Opens the database for either dialect: better-sqlite3 (WAL) or a pg pool, behind one Kysely instance. */
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type SQLite from 'better-sqlite3';
import type pg from 'pg';
import { LRUCache } from 'lru-cache';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import type { DatabaseTarget } from '../config/load.ts';
import type { DB } from './types.ts';
import { FlushingSqliteDialect } from './sqlite-commit.ts';
import { checkpointOffLoop } from './checkpoints.ts';
import { sqliteDriver } from './sqlite-driver.ts';

/** Which SQL engine a handle talks to. */
export type Dialect = 'sqlite' | 'postgres';

/** An open database: the Kysely instance, its dialect and how to close it. */
export interface Database {
  db: Kysely<DB>;
  /**
   * For reads that need not see an open transaction's writes. With SQLite this is a second connection, so reads do not
   * queue behind a writing transaction (WAL lets readers run beside the writer); with PostgreSQL it is `db` itself.
   */
  reader: Kysely<DB>;
  dialect: Dialect;
  /**
   * Resolves once every commit made so far is on disk. A commit is durable when it returns, but another request may
   * read it a moment before; an answer that acknowledges what a read found (an idempotent replay) waits for this.
   */
  flushed(): Promise<void>;
  /**
   * Runs `write`, one statement or a few, as bookkeeping whose loss in a machine crash is harmless: claiming work rows,
   * extending and ending their leases. Work rows are run at least once, and a lost claim or completion only means a
   * row runs again, which every handler allows. With SQLite's FULL, such a write commits without waiting for the disk
   * (on the event loop), and the next synced commit carries it to disk with its own; elsewhere it runs as any write.
   */
  unsynced<T>(write: (db: Kysely<DB>) => Promise<T>): Promise<T>;
  /** The PostgreSQL URL, for features that need a dedicated connection (the scheduler's advisory lock). */
  pgUrl?: string;
  close(): Promise<void>;
}

/** Options for opening a database. */
export interface ConnectOptions {
  poolSize?: number;
  sqliteSynchronous?: 'FULL' | 'NORMAL';
  /** Told when an idle PostgreSQL connection fails (it is replaced on next use). */
  onIdleError?: (err: Error) => void;
}

/** Loads CommonJS drivers on first use: an embedded install never loads the PostgreSQL driver, nor a PostgreSQL one SQLite's. */
const load = createRequire(import.meta.url);

let pgModule: typeof pg | undefined;

/** The PostgreSQL driver (node-postgres), loaded once: the type parsers ask for it for every column of every result. */
export function pgDriver(): typeof pg {
  return (pgModule ??= load('pg') as typeof pg);
}

/** Parses PostgreSQL int8 and numeric counts as JS numbers (ids and epoch-millisecond timestamps fit). */
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20) return (value: string) => Number(value);
    return pgDriver().types.getTypeParser(oid, format as 'text');
  },
};

/**
 * Kysely prepares every statement anew; SQLite's prepare costs as much as running a small statement. The queries of a
 * running server are a small fixed set, so their prepared statements are kept (at most `max`, least recently used
 * dropped first). Kysely runs one statement at a time on this connection, so a cached statement is never in use twice.
 */
function withStatementCache(sqlite: SQLite.Database, max = 500): SQLite.Database {
  const cache = new LRUCache<string, SQLite.Statement>({ max });
  const prepare = sqlite.prepare.bind(sqlite);
  return new Proxy(sqlite, {
    get(target, prop, receiver) {
      if (prop !== 'prepare') return Reflect.get(target, prop, receiver);
      return (source: string) => {
        let stmt = cache.get(source);
        if (!stmt) cache.set(source, (stmt = prepare(source)));
        return stmt;
      };
    },
  });
}

/** `flushed` of a database whose commits are on disk (or as durable as configured) when they return. */
const settled = (): Promise<void> => Promise.resolve();

const SYNC_NORMAL = CompiledQuery.raw('pragma synchronous = NORMAL');
const SYNC_FULL = CompiledQuery.raw('pragma synchronous = FULL');

/** Runs `write` on the SQLite connection with synchronous=NORMAL: its commit does not sync the disk. */
function unsyncedWrite<T>(db: Kysely<DB>, write: (db: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.connection().execute(async (connection) => {
    await connection.executeQuery(SYNC_NORMAL);
    try {
      return await write(connection);
    } finally {
      await connection.executeQuery(SYNC_FULL);
    }
  });
}

/**
 * Creates the database file's directory (0700) and the file itself (0600) before SQLite opens it, so neither is readable
 * by other users whatever the umask; SQLite gives its -wal and -shm files the database file's permissions.
 */
function createPrivateFile(file: string): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  closeSync(openSync(file, 'a', 0o600));
  chmodSync(file, 0o600);
}

/** Opens the database named by `target`. */
export async function connect(target: DatabaseTarget, opts: ConnectOptions = {}): Promise<Database> {
  if (target.dialect === 'sqlite') {
    if (target.file !== ':memory:') createPrivateFile(target.file);
    const Driver = sqliteDriver();
    const sqlite = new Driver(target.file);
    sqlite.pragma('journal_mode = WAL');
    const synchronous = opts.sqliteSynchronous ?? 'FULL';
    sqlite.pragma(`synchronous = ${synchronous}`);
    sqlite.pragma('busy_timeout = 10000');
    sqlite.pragma('foreign_keys = ON');
    if (target.file === ':memory:') {
      const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
      return {
        db,
        reader: db,
        dialect: 'sqlite',
        flushed: settled,
        unsynced: (write) => write(db),
        close: () => db.destroy(),
      };
    }
    // With FULL (the default), transactions flush the WAL off the event loop before their commit returns (sqlite-commit.ts).
    const config = { database: withStatementCache(sqlite) };
    const flushing = synchronous === 'FULL' ? new FlushingSqliteDialect(config, target.file) : undefined;
    const db = new Kysely<DB>({ dialect: flushing ?? new SqliteDialect(config) });
    // The log is copied into the file on a thread of its own, not inside a commit on the event loop.
    const checkpoints = checkpointOffLoop(target.file, sqlite);
    const readConnection = new Driver(target.file);
    readConnection.pragma('busy_timeout = 10000');
    const reader = new Kysely<DB>({
      dialect: new SqliteDialect({ database: withStatementCache(readConnection) }),
    });
    return {
      db,
      reader,
      dialect: 'sqlite',
      flushed: flushing ? () => flushing.flushed() : settled,
      unsynced: flushing ? (write) => unsyncedWrite(db, write) : (write) => write(db),
      close: async () => {
        await checkpoints.stop();
        await reader.destroy();
        await db.destroy();
      },
    };
  }
  const pool = new (pgDriver().Pool)({
    connectionString: target.url,
    max: opts.poolSize ?? 10,
    types: pgTypes,
  });
  // An idle connection the server drops (a restart, a failover) reports here; the pool replaces it on next use.
  // Without a listener the error would end the process.
  pool.on('error', (err) => opts.onIdleError?.(err));
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  await sql`select 1`.execute(db);
  return {
    db,
    reader: db,
    dialect: 'postgres',
    flushed: settled,
    unsynced: (write) => write(db),
    pgUrl: target.url,
    close: () => db.destroy(),
  };
}
