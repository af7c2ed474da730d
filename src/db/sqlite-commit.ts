/**
 * The SQLite dialect of a durable database whose commits do not hold the event loop while the disk syncs. With
 * synchronous=FULL SQLite syncs the WAL inside COMMIT, and better-sqlite3 runs on the main thread, so every commit
 * stops the whole process for the length of an fsync. Here a transaction commits with synchronous=NORMAL (SQLite writes
 * the WAL but does not wait for the disk), then the WAL is flushed with fdatasync on libuv's thread pool, and only then
 * does the commit return: when a caller sees its commit, the commit is on disk, as with FULL, while the process goes on
 * parsing and preparing other requests during the flush. Statements outside a transaction keep the connection's FULL.
 * Checkpoints still sync the WAL before copying it into the database file and sync that file after, as SQLite always does.
 * Lifecycle: created with the connection; opens the WAL file at the first commit and closes it with the connection.
 */
import { closeSync, fdatasync, openSync } from 'node:fs';
import { promisify } from 'node:util';
import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type SqliteDialectConfig } from 'kysely';

const syncData = promisify(fdatasync);
const NORMAL = CompiledQuery.raw('pragma synchronous = NORMAL');
const FULL = CompiledQuery.raw('pragma synchronous = FULL');

/** A commit that SQLite wrote but whose WAL could not be flushed: it may or may not survive a crash. */
export class UnflushedCommitError extends Error {
  constructor(cause: unknown) {
    super(`committed, but the write-ahead log could not be flushed to disk: ${String(cause)}`, { cause });
  }
}

/** The WAL file of a database, opened for flushing at the first commit. */
class WalFile {
  private fd: number | undefined;
  constructor(private readonly path: string) {}

  async flush(): Promise<void> {
    try {
      // WAL mode creates the file with the connection, and it stays while a connection is open.
      this.fd ??= openSync(this.path, 'r');
      await syncData(this.fd);
    } catch (err) {
      throw new UnflushedCommitError(err);
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

class FlushingDriver extends SqliteDriver {
  private readonly unflushed = new WeakSet<DatabaseConnection>();

  constructor(
    config: SqliteDialectConfig,
    private readonly wal: WalFile,
  ) {
    super(config);
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(NORMAL);
    await super.beginTransaction(connection);
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await super.commitTransaction(connection);
    await connection.executeQuery(FULL);
    try {
      await this.wal.flush();
    } catch (err) {
      this.unflushed.add(connection);
      throw err;
    }
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    // After a failed flush the transaction is committed already: there is nothing to roll back.
    if (this.unflushed.delete(connection)) return;
    await super.rollbackTransaction(connection);
    await connection.executeQuery(FULL);
  }

  override async destroy(): Promise<void> {
    await super.destroy();
    this.wal.close();
  }
}

/** The dialect for a database file opened with synchronous=FULL: transactions commit as described above. */
export class FlushingSqliteDialect extends SqliteDialect {
  constructor(
    private readonly config: SqliteDialectConfig,
    private readonly file: string,
  ) {
    super(config);
  }

  override createDriver(): Driver {
    return new FlushingDriver(this.config, new WalFile(`${this.file}-wal`));
  }
}
