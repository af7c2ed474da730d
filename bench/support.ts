/** Shared pieces of the benchmarks: an embedded Sealpost on a temp data directory, an account with a key, load generation, result formatting. */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { createScratchDatabase, TEST_PG_ADMIN_URL, type ScratchDatabase } from '../src/test/database.ts';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { execFile } from 'node:child_process';
import net from 'node:net';
import { createRequire } from 'node:module';
import pino, { type Logger } from 'pino';
import { loadConfig } from '../src/config/load.ts';
import type { Config } from '../src/config/schema.ts';
import { openContext } from '../src/runtime.ts';
import type { AppContext } from '../src/context.ts';
import { createAccount } from '../src/accounts/accounts.service.ts';
import { addDomain } from '../src/accounts/domains.service.ts';
import { createKey } from '../src/accounts/keys.service.ts';
import type { ChangeBy } from '../src/audit/audit.service.ts';

/** The author of the set-up changes a benchmark makes (audited like any other). */
export const BENCH_BY: ChangeBy = { actor: { type: 'system', id: 'bench' } };

/** An embedded Sealpost (SQLite in a temp directory) with one account, a verified domain and a key. */
export interface BenchInstance {
  ctx: AppContext;
  key: string;
  domain: string;
  close(): Promise<void>;
}

/** The PostgreSQL server the benchmarks create their scratch databases on (as for the tests). */
export const BENCH_PG_URL = TEST_PG_ADMIN_URL;

/**
 * Opens an instance on a fresh PostgreSQL database of SEALPOST_TEST_PG_URL's server (dropped on close), or returns
 * undefined when that server does not answer.
 */
export async function onPostgres(overrides: Partial<Config> = {}): Promise<BenchInstance | undefined> {
  let scratch: ScratchDatabase;
  try {
    scratch = await createScratchDatabase('postgres');
  } catch {
    return undefined;
  }
  const inst = await embedded({
    databaseUrl: scratch.url,
    masterKey: randomBytes(32).toString('base64'),
    ...overrides,
  });
  return {
    ...inst,
    close: async () => {
      await inst.close();
      await scratch.drop();
    },
  };
}

/** Opens an embedded instance with benchmark-friendly configuration (no rate limit, silent logs). */
export async function embedded(
  overrides: Partial<Config> = {},
  log: Logger = pino({ level: 'silent' }),
): Promise<BenchInstance> {
  const dir = mkdtempSync(path.join(tmpdir(), 'sealpost-bench-'));
  const config = loadConfig(
    {},
    {
      dataDir: dir,
      httpHost: '127.0.0.1',
      httpPort: 0,
      logLevel: 'silent',
      rateLimitPerMinute: 0,
      ...overrides,
    },
  );
  const ctx = await openContext(config, log);
  const db = ctx.database.db;
  const account = await createAccount(db, 'bench');
  await addDomain(db, ctx.sealer, account.customer_id, 'bench.example', BENCH_BY, { verified: true });
  const k = await createKey(db, account.customer_id, {
    by: BENCH_BY,
    scopes: 'email,forms,marketing',
    domain: 'bench.example',
  });
  return {
    ctx,
    key: k.key,
    domain: 'bench.example',
    close: async () => {
      await ctx.database.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Throughput and latency of one load run. */
export interface LoadResult {
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  total: number;
}

const AUTOCANNON = createRequire(import.meta.url).resolve('autocannon/autocannon.js');

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}

/**
 * Sends `body` as POST to `url` with `connections` concurrent connections for `seconds` (at most `rate` requests per
 * second in all, when given). The load comes from a separate
 * autocannon process, so the server under test keeps its event loop (and the machine's other core) to itself.
 */
export async function load(
  url: string,
  opts: {
    connections: number;
    seconds: number;
    body: string;
    headers?: Record<string, string>;
    rate?: number;
    /** Stop after this many requests in all (before `seconds` are over). */
    amount?: number;
    /** Seconds a request may take before it counts as an error (autocannon's default is 10). */
    timeout?: number;
  },
): Promise<LoadResult> {
  const headers = Object.entries({ 'content-type': 'application/json', ...opts.headers }).flatMap(
    ([k, v]) => ['-H', `${k}=${v}`],
  );
  // A long body does not fit in a command line: autocannon reads it from a file instead.
  const bodyFile =
    opts.body.length > 64 * 1024
      ? path.join(mkdtempSync(path.join(tmpdir(), 'sealpost-body-')), 'b')
      : undefined;
  if (bodyFile) writeFileSync(bodyFile, opts.body);
  const args = [
    AUTOCANNON,
    '--json',
    '-c',
    String(opts.connections),
    '-d',
    String(opts.seconds),
    '-m',
    'POST',
    ...(opts.rate ? ['-R', String(opts.rate)] : []),
    ...(opts.amount ? ['-a', String(opts.amount)] : []),
    ...(opts.timeout ? ['-t', String(opts.timeout)] : []),
    ...headers,
    ...(bodyFile ? ['-i', bodyFile] : ['-b', opts.body]),
    url,
  ];
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 }, (err, out) =>
      err ? reject(err) : resolve(out),
    ),
  ).finally(() => bodyFile && rmSync(path.dirname(bodyFile), { recursive: true, force: true }));
  const r = JSON.parse(stdout) as AutocannonResult;
  return {
    requestsPerSec: r.requests.average,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    total: r.requests.total,
  };
}

/** A result line of the report. */
export interface BenchRow {
  name: string;
  measured: string;
  baseline: string;
  ratio: number;
  target: string;
  met: boolean;
}

export const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** A loopback TCP port free at the time of asking. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/**
 * Node.js flags for a service process the benchmark starts: with `BENCH_PROFILE_DIR` set, each writes a CPU profile
 * (`.cpuprofile`, readable in Chrome's DevTools) into that folder when it exits; with `BENCH_SQL_TIMES_DIR` set, each
 * writes the time its SQLite statements took there (bench/sql-times.mjs).
 */
export const profileArgs = (): string[] => [
  ...(process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : []),
  ...(process.env.BENCH_SQL_TIMES_DIR
    ? ['--import', pathToFileURL(path.join(import.meta.dirname, 'sql-times.mjs')).href]
    : []),
];

/**
 * Settings a benchmark's service process is started with on top of its own, from `BENCH_SERVICE_ENV` (space-separated
 * `KEY=value` pairs, for example `SEALPOST_MARKETING_CONCURRENCY=64`): an A/B of a setting in one command.
 */
export function serviceEnvOverrides(): Record<string, string> {
  const pairs = (process.env.BENCH_SERVICE_ENV ?? '').split(/\s+/).filter(Boolean);
  return Object.fromEntries(
    pairs.map((pair) => {
      const at = pair.indexOf('=');
      if (at < 1) throw new Error(`BENCH_SERVICE_ENV: expected KEY=value, got ${pair}`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}

/** Clock ticks per second of /proc's CPU times (USER_HZ): 100 on Linux everywhere Sealpost's benchmarks run. */
const USER_HZ = 100;

/** CPU time (ms) process `pid` has used so far, all its threads, user and system, from /proc. */
export function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command name (which may hold spaces), from field 3 (state) on: utime and stime are 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ;
}

/**
 * CPU time (ms) all of this machine's PostgreSQL server processes have used so far (processes named `postgres` in
 * /proc, of every cluster running here; a process that ends between two readings takes its time with it). Undefined
 * where /proc cannot be read or shows no such process (a server on another machine or in a container).
 */
export function postgresCpuMs(): number | undefined {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return undefined;
  }
  let total = 0;
  let found = false;
  for (const pid of pids) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
      total += processCpuMs(Number(pid));
      found = true;
    } catch {
      // the process ended while being read
    }
  }
  return found ? total : undefined;
}

/** CPU time (ms) of one RSA-2048 SHA-256 signature on this machine now (what each DKIM-signed copy costs at least). */
export function rsaSignatureCpuMs(samples = 300): number {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const data = Buffer.alloc(700, 'h');
  const before = process.cpuUsage();
  for (let i = 0; i < samples; i++) sign('sha256', data, privateKey);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / samples;
}
