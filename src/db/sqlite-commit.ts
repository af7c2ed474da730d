/**
 * The SQLite dialect of a durable database whose commits do not hold the event loop while the disk syncs. With
 * synchronous=FULL SQLite syncs the WAL inside COMMIT, and better-sqlite3 runs on the main thread, so every commit
 * would stop the whole process for the length of an fsync. Here a transaction commits with synchronous=NORMAL (SQLite
 * writes the WAL but does not wait for the disk), hands the connection on to the next transaction, and then waits for
 * the WAL to be flushed with fdatasync on libuv's thread pool: when a caller sees its commit return, the commit is on
 * disk, as with FULL, while the process goes on serving requests and committing the next transaction during the flush.
 * A flush covers every commit written before it started, so commits that land while one runs share the next.
 * Statements outside a transaction keep the connection's FULL. Checkpoints sync the WAL before copying it into the
 * database file and sync that file after, as SQLite always does.
 * Other connections may read a commit in the moments before its flush ends; only a machine crash in those moments can
 * undo it, and its caller has not been told it succeeded.
 * Lifecycle: created with the connection; opens the WAL file at the first commit and closes it with the connection.
 */
import { closeSync, fdatasync, openSync } from 'node:fs';
import { promisify } from 'node:util';
import {
  CompiledQuery,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type SqliteDialectConfig,
} from 'kysely';

const syncData = promisify(fdatasync);
const NORMAL = CompiledQuery.raw('pragma synchronous = NORMAL');
const FULL = CompiledQuery.raw('pragma synchronous = FULL');

/** A commit that SQLite wrote but whose WAL could not be flushed: it may or may not survive a crash. */
export class UnflushedCommitError extends Error {
  constructor(cause: unknown) {
    super(`committed, but the write-ahead log could not be flushed to disk: ${String(cause)}`, { cause });
  }
}

/** The WAL file of a database, flushed on demand; concurrent demands share flushes. */
class WalFile {
  private fd: number | undefined;
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  constructor(private readonly path: string) {}

  /** Resolves once everything written to the WAL before the call is on disk. */
  flush(): Promise<void> {
    if (this.queued) return this.queued;
    if (!this.running) return this.start();
    // The running flush may have begun before the caller's write: the caller needs the next one.
    const next = this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.start();
      });
    this.queued = next;
    return next;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private start(): Promise<void> {
    const run = this.sync().finally(() => {
      if (this.running === run) this.running = undefined;
    });
    this.running = run;
    return run;
  }

  private async sync(): Promise<void> {
    try {
      // WAL mode creates the file with the connection, and it stays while a connection is open.
      this.fd ??= openSync(this.path, 'r');
      await syncData(this.fd);
    } catch (err) {
      throw new UnflushedCommitError(err);
    }
  }
}

/** One use of the connection: it may be handed on at commit, before the caller's release. */
class Lease implements DatabaseConnection {
  released = false;
  committed = false;
  constructor(readonly connection: DatabaseConnection) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.connection.executeQuery<R>(query);
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.connection.streamQuery<R>(query, chunkSize);
  }
}

class FlushingDriver extends SqliteDriver {
  constructor(
    config: SqliteDialectConfig,
    private readonly wal: WalFile,
  ) {
    super(config);
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    return new Lease(await super.acquireConnection());
  }

  override async beginTransaction(lease: Lease): Promise<void> {
    await lease.executeQuery(NORMAL);
    await super.beginTransaction(lease);
  }

  override async commitTransaction(lease: Lease): Promise<void> {
    await super.commitTransaction(lease);
    await lease.executeQuery(FULL);
    lease.committed = true;
    await this.releaseConnection(lease);
    await this.wal.flush();
  }

  override async rollbackTransaction(lease: Lease): Promise<void> {
    // Called after a failed flush too: that transaction is committed, and the connection may serve another by now.
    if (lease.committed) return;
    await super.rollbackTransaction(lease);
    await lease.executeQuery(FULL);
  }

  // Kysely passes the connection it acquired; the base class ignores it.
  override async releaseConnection(connection?: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    if (lease.released) return;
    lease.released = true;
    await super.releaseConnection();
  }

  override async destroy(): Promise<void> {
    await super.destroy();
    this.wal.close();
  }
}

/** The dialect for a database file opened with synchronous=FULL: transactions commit as described above. */
export class FlushingSqliteDialect extends SqliteDialect {
  private readonly wal: WalFile;
  constructor(
    private readonly config: SqliteDialectConfig,
    file: string,
  ) {
    super(config);
    this.wal = new WalFile(`${file}-wal`);
  }

  override createDriver(): Driver {
    return new FlushingDriver(this.config, this.wal);
  }

  /** Resolves once every commit written so far is on disk: for answers built from what a read found. */
  flushed(): Promise<void> {
    return this.wal.flush();
  }
}
