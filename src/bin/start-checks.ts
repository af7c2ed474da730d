/**
 * What `sealpost start` checks before it opens anything, and how the usual ways a start fails (a busy port, a missing
 * relay URL, an unwritable data directory, an unreachable database) become one line naming the cause and the setting.
 */
import { accessSync, constants, mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ConfigError, databaseTarget } from '../config/load.ts';
import type { Config } from '../config/schema.ts';
import { redactUrl } from '../ops/redact-url.ts';
import { pgDriver } from '../db/connect.ts';
import type { Queryable } from '../db/types.ts';
import { resolveMasterKey } from '../crypto/master-key.ts';
import { checkKeyOnDatabase, masterKeySource, mismatchLine } from '../ops/master-key-check.ts';

/** A start that cannot go on, with the one line to show. */
export class StartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartError';
  }
}

/** Network error codes that mean the database host could not be reached or refused the connection. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
]);

/** Checks, before anything opens, that the configuration can start: relay URL, data directory, database reachable. */
export async function checkStartable(config: Config): Promise<void> {
  if (config.transport === 'relay' && !config.relayUrl)
    throw new ConfigError(
      'SEALPOST_RELAY_URL is required when SEALPOST_TRANSPORT is relay (smtp://user:pass@host:587)',
    );
  const target = databaseTarget(config);
  if (target.dialect === 'sqlite') {
    checkWritable(config.dataDir, 'SEALPOST_DATA_DIR');
    if (target.file !== ':memory:' && path.dirname(target.file) !== path.resolve(config.dataDir))
      checkWritable(path.dirname(target.file), 'SEALPOST_DATABASE_URL');
    return;
  }
  await probePostgres(target.url);
}

/**
 * Refuses a master key that does not open the data already stored: a node with a mistyped key would accept mail and
 * submissions that no node can read. The first start records a value sealed with its key, so later starts are checked
 * whatever the database holds.
 */
export async function checkMasterKeyOpensData(config: Config, db: Queryable): Promise<void> {
  const key = resolveMasterKey(config, databaseTarget(config));
  const check = await checkKeyOnDatabase(db, key, masterKeySource(config), { record: true });
  if (check.result === 'mismatch') throw new StartError(mismatchLine(check));
}

/**
 * Binds and releases every port the roles will listen on, before the database opens or any role starts work: a busy
 * port stops the start at once, naming its setting. SMTP ports needing privileges are left to the SMTP role, which
 * turns such a listener off with a warning.
 */
export async function checkPortsFree(config: Config, roles: readonly string[]): Promise<void> {
  const wanted: { host: string; port: number; smtp: boolean }[] = [];
  if (roles.includes('api')) wanted.push({ host: config.httpHost, port: config.httpPort, smtp: false });
  else if (config.metricsPort !== undefined)
    wanted.push({ host: config.httpHost, port: config.metricsPort, smtp: false });
  if (roles.includes('smtp'))
    for (const port of [config.smtpSubmissionPort, config.smtpTlsPort, config.smtpPort25])
      wanted.push({ host: config.smtpHost, port, smtp: true });
  for (const { host, port, smtp } of wanted) {
    if (port === 0) continue;
    const err = await tryBind(host, port);
    if (!err || (smtp && err.code === 'EACCES')) continue;
    throw explainStartFailure(Object.assign(err, { port, address: host }), config);
  }
}

function tryBind(host: string, port: number): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', (err: NodeJS.ErrnoException) => resolve(err));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}

/** Creates `dir` when missing and fails unless this process may write into it. */
export function checkWritable(dir: string, setting: string): void {
  const abs = path.resolve(dir);
  try {
    mkdirSync(abs, { recursive: true });
    accessSync(abs, constants.W_OK | constants.X_OK);
  } catch (err) {
    throw new StartError(`the data directory ${abs} is not writable (${setting}): ${errorText(err)}`);
  }
}

/** Opens and closes one connection, failing with the database's address (never its password) when that does not work. */
async function probePostgres(url: string): Promise<void> {
  const client = new (pgDriver().Client)({ connectionString: url, connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
  } catch (err) {
    throw new StartError(
      `the database at ${redactUrl(url)} is unreachable (SEALPOST_DATABASE_URL): ${errorText(err)}`,
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Turns a failure of opening the database or starting a listener into a StartError naming the setting, or returns it unchanged. */
export function explainStartFailure(err: unknown, config: Config): unknown {
  const e = err as NodeJS.ErrnoException & { port?: number; address?: string };
  if (e?.code === 'EADDRINUSE' || e?.code === 'EADDRNOTAVAIL') {
    const setting = portSetting(config, e.port);
    const what = e.code === 'EADDRINUSE' ? 'is already in use' : 'cannot be bound on this machine';
    return new StartError(
      `port ${e.port ?? '?'} on ${e.address ?? 'the configured address'} ${what} (${setting})`,
    );
  }
  if (e?.code === 'EACCES' && e.syscall === 'listen' && e.port !== undefined)
    return new StartError(
      `port ${e.port} on ${e.address ?? 'the configured address'} needs root or CAP_NET_BIND_SERVICE (${portSetting(config, e.port)}): choose a port above 1023, or grant the capability`,
    );
  if (e?.code && UNREACHABLE.has(e.code) && config.databaseUrl)
    return new StartError(
      `the database at ${redactUrl(config.databaseUrl)} is unreachable (SEALPOST_DATABASE_URL): ${errorText(err)}`,
    );
  if (
    e?.code === 'SQLITE_CANTOPEN' ||
    e?.code === 'SQLITE_READONLY' ||
    e?.code === 'EACCES' ||
    e?.code === 'EROFS'
  )
    return new StartError(
      `the data directory ${path.resolve(config.dataDir)} is not writable (SEALPOST_DATA_DIR): ${errorText(err)}`,
    );
  return err;
}

/** The configuration key whose value is `port`. */
function portSetting(config: Config, port: number | undefined): string {
  const candidates: [number, string][] = [
    [config.httpPort, 'SEALPOST_HTTP_PORT'],
    [config.smtpSubmissionPort, 'SEALPOST_SMTP_SUBMISSION_PORT'],
    [config.smtpTlsPort, 'SEALPOST_SMTP_TLS_PORT'],
    [config.smtpPort25, 'SEALPOST_SMTP_PORT_25'],
    ...(config.metricsPort === undefined
      ? []
      : [[config.metricsPort, 'SEALPOST_METRICS_PORT'] as [number, string]]),
  ];
  return candidates.find(([p]) => p === port)?.[1] ?? 'SEALPOST_HTTP_PORT or an SMTP port';
}

function errorText(err: unknown): string {
  const e = err as Error & { code?: string; errors?: Error[] };
  const message = e?.message || e?.errors?.[0]?.message || e?.code || String(err);
  return message.split('\n')[0]!;
}
