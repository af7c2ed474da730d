/** Opening a Sealpost: configuration → logger → database (migrated) → master key → context; and closing it. */
import { createRequire } from 'node:module';
import pino, { type Logger } from 'pino';
import type pretty from 'pino-pretty';
import type { Config } from './config/schema.ts';
import { databaseTarget, publicBaseUrl } from './config/load.ts';
import { migrateToLatest } from './db/migrate.ts';
import { resolveMasterKey } from './crypto/master-key.ts';
import { createSealer } from './crypto/sealer.ts';
import type { AppContext } from './context.ts';
import { connect, type Database } from './db/connect.ts';
import { createGroupCommitter } from './db/group-commit.ts';
import { deriveKey } from './crypto/derive.ts';
import { createInFlight } from './in-flight.ts';
import { createAuthThrottle } from './auth-throttle.ts';
import { batchedLogStream } from './log-stream.ts';

/**
 * Creates the structured logger: JSON lines to stdout for the server, to stderr for command-line tools. When that stream
 * is a terminal, lines are printed readable (pino-pretty, in this process) instead; a pipe or a file always gets JSON.
 */
export function createLogger(
  config: Config,
  stream: 'stdout' | 'stderr' = 'stdout',
  isTty = isTerminal(stream),
): Logger {
  const fd = stream === 'stdout' ? 1 : 2;
  if (isTty)
    return pino(
      loggerOptions(config),
      prettyStream()({
        destination: fd,
        sync: true,
        colorize: true,
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'pid,hostname,service',
      }),
    );
  // The server gathers its lines into few writes without blocking (log-stream.ts); the tools write each line at once.
  return pino(
    loggerOptions(config),
    stream === 'stdout' ? batchedLogStream(fd) : pino.destination({ dest: fd, sync: true }),
  );
}

/** The options of every Sealpost logger: the configured level, the service name, and the fields never written. */
export function loggerOptions(config: Config): pino.LoggerOptions {
  return {
    level: config.logLevel,
    base: { service: 'sealpost' },
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', 'password', 'key'],
      censor: '[redacted]',
    },
  };
}

/** pino-pretty, loaded only when a terminal will read the log (a server writing JSON to a pipe never loads it). */
function prettyStream(): typeof pretty {
  return createRequire(import.meta.url)('pino-pretty') as typeof pretty;
}

function isTerminal(stream: 'stdout' | 'stderr'): boolean {
  return Boolean((stream === 'stdout' ? process.stdout : process.stderr).isTTY);
}

/** Opens the database, applies pending migrations and resolves the master key. */
export async function openContext(
  config: Config,
  log: Logger,
  opts: { migrate?: boolean } = {},
): Promise<AppContext> {
  const target = databaseTarget(config);
  const masterKey = resolveMasterKey(config, target, log);
  const database = await connect(target, {
    poolSize: config.databasePoolSize,
    sqliteSynchronous: config.sqliteSynchronous,
    onIdleError: (err) => log.warn({ err }, 'an idle database connection failed; it will be replaced'),
  });
  if (opts.migrate !== false) {
    try {
      const applied = await migrateToLatest(database);
      if (applied.length > 0) log.info({ applied }, 'database migrations applied');
    } catch (err) {
      await database.close();
      throw err;
    }
  }
  return createContext(config, database, masterKey, log);
}

/**
 * How many group-commit batches may run at once. SQLite has one writer. PostgreSQL runs transactions side by side, and
 * a batch spends most of its time waiting for round trips and the commit's flush, so half of the pool's connections
 * may write batches while the rest serve the reads of the requests that fill them (measured in bench/accept.ts).
 */
function parallelBatches(config: Config, database: Database): number {
  if (database.dialect !== 'postgres') return 1;
  return Math.max(1, Math.floor(config.databasePoolSize / 2));
}

/** Builds the context over an open database. */
export function createContext(
  config: Config,
  database: Database,
  masterKey: Buffer,
  log: Logger,
): AppContext {
  return {
    config,
    database,
    sealer: createSealer(masterKey),
    log,
    publicUrl: publicBaseUrl(config),
    committer: createGroupCommitter(database.db, {
      parallel: parallelBatches(config, database),
      statements: database.dialect === 'postgres',
    }),
    keys: { tracking: deriveKey(masterKey, 'tracking'), returnPath: deriveKey(masterKey, 'return-path') },
    authThrottle: createAuthThrottle(config.authFailuresPerWindow, log),
    inFlight: createInFlight(config.maxInFlightBytes),
    wake: () => undefined,
  };
}
