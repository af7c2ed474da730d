/** Reads configuration once, from an optional JSON file and the SEALPOST_* environment, validates it and freezes it. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import proxyAddr from '@fastify/proxy-addr';
import { CONFIG_FILE_ENV, KEYS, type Config, type KeySpec } from './schema.ts';

/** A configuration problem, named by the key at fault. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Environment variables with the SEALPOST_ prefix that are not configuration keys but are allowed. */
const NON_KEY_ENV = /^SEALPOST_(TEST_|BENCH_)|^SEALPOST_CONFIG_FILE$/;

/** Loads the configuration from `env` (and the file it names), throwing ConfigError on the first bad key. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const file = readConfigFile(env[CONFIG_FILE_ENV]);
  rejectUnknownEnv(env);
  const out: Record<string, unknown> = {};
  for (const [prop, spec] of Object.entries(KEYS) as [string, KeySpec][]) {
    if (prop in overrides) {
      out[prop] = (overrides as Record<string, unknown>)[prop];
      continue;
    }
    const raw = env[spec.env];
    if (raw !== undefined && raw !== '') out[prop] = parseValue(spec, spec.env, raw);
    else if (file[prop] !== undefined && file[prop] !== null && file[prop] !== '')
      out[prop] = parseValue(spec, `${prop} (in ${env[CONFIG_FILE_ENV]})`, file[prop]);
    else out[prop] = spec.default === undefined ? undefined : parseValue(spec, spec.env, spec.default);
  }
  return Object.freeze(out) as Config;
}

function readConfigFile(file: string | undefined): Record<string, unknown> {
  if (!file) return {};
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`${CONFIG_FILE_ENV}: cannot read ${file}: ${(err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`${CONFIG_FILE_ENV}: ${file} is not valid JSON: ${(err as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new ConfigError(`${CONFIG_FILE_ENV}: ${file} must hold a JSON object`);
  for (const key of Object.keys(parsed)) {
    if (!(key in KEYS)) throw new ConfigError(`${key} (in ${file}): unknown configuration key`);
  }
  return parsed as Record<string, unknown>;
}

function rejectUnknownEnv(env: NodeJS.ProcessEnv): void {
  const known = new Set<string>(Object.values(KEYS).map((k) => k.env));
  for (const name of Object.keys(env)) {
    if (name.startsWith('SEALPOST_') && !known.has(name) && !NON_KEY_ENV.test(name))
      throw new ConfigError(`${name}: unknown configuration key (see docs/configuration.md)`);
  }
}

function parseValue(
  spec: KeySpec,
  name: string,
  raw: unknown,
): string | number | boolean | readonly number[] | readonly string[] {
  const shown = JSON.stringify(raw);
  switch (spec.kind) {
    case 'integer': {
      const n = typeof raw === 'number' ? raw : /^-?\d+$/.test(String(raw).trim()) ? Number(raw) : NaN;
      if (!Number.isSafeInteger(n)) throw new ConfigError(`${name} must be an integer (got ${shown})`);
      if (spec.min !== undefined && n < spec.min)
        throw new ConfigError(`${name} must be at least ${spec.min} (got ${n})`);
      if (spec.max !== undefined && n > spec.max)
        throw new ConfigError(`${name} must be at most ${spec.max} (got ${n})`);
      return n;
    }
    case 'boolean': {
      if (typeof raw === 'boolean') return raw;
      const s = String(raw).trim().toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(s)) return true;
      if (['0', 'false', 'no', 'off'].includes(s)) return false;
      throw new ConfigError(`${name} must be true or false (got ${shown})`);
    }
    case 'enum': {
      const s = String(raw).trim();
      if (!spec.values?.includes(s))
        throw new ConfigError(`${name} must be one of ${spec.values?.join(', ')} (got ${shown})`);
      return s;
    }
    case 'durations':
      return Object.freeze(parseDurations(name, raw));
    case 'proxies':
      return Object.freeze(parseProxies(name, raw));
    default:
      if (typeof raw !== 'string') throw new ConfigError(`${name} must be a string (got ${shown})`);
      if (spec.schemes) checkUrl(name, raw, spec.schemes);
      return raw;
  }
}

/** A URL of one of `schemes` that names a host; the message never repeats a password it holds. */
function checkUrl(name: string, raw: string, schemes: readonly string[]): void {
  const expected = schemes.map((s) => `${s}://`).join(' or ');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL starting with ${expected}`);
  }
  const scheme = url.protocol.replace(/:$/, '');
  if (!schemes.includes(scheme))
    throw new ConfigError(`${name} must start with ${expected} (got ${JSON.stringify(`${scheme}:`)})`);
  if (!url.hostname) throw new ConfigError(`${name} must name a host, as in ${schemes[0]}://host.example`);
}

const NO_PROXY = ['false', 'off', 'no', '0'];
const ONE_LOCAL_PROXY = ['true', 'on', 'yes', '1'];

/**
 * Parses the trusted proxies: `false` trusts none, `true` means a proxy on the same host (`loopback`), anything else
 * is a comma-separated list (or JSON array) of addresses, CIDR ranges and proxy-addr's named ranges, checked by
 * compiling it exactly as the HTTP server will.
 */
function parseProxies(name: string, raw: unknown): string[] {
  const shown = JSON.stringify(raw);
  const s = String(raw).trim().toLowerCase();
  if (raw === false || NO_PROXY.includes(s)) return [];
  if (raw === true || ONE_LOCAL_PROXY.includes(s)) return ['loopback'];
  const parts = (Array.isArray(raw) ? raw.map(String) : String(raw).split(',')).map((p) => p.trim());
  try {
    if (parts.some((p) => p === '')) throw new Error('an empty entry');
    proxyAddr.compile(parts);
  } catch (err) {
    throw new ConfigError(
      `${name} must be true, false or a comma-separated list of proxy addresses, CIDR ranges, loopback, linklocal or uniquelocal (got ${shown}: ${(err as Error).message})`,
    );
  }
  return parts;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses `1m,5m,1h` (or a JSON array of such strings) into milliseconds. */
function parseDurations(name: string, raw: unknown): number[] {
  const parts = Array.isArray(raw) ? raw.map(String) : String(raw).split(',');
  const out = parts.map((p) => {
    const m = /^\s*(\d+)\s*(ms|s|m|h|d)\s*$/.exec(p);
    if (!m)
      throw new ConfigError(
        `${name} must be a comma-separated list of durations such as 30s,5m,1h (got ${JSON.stringify(p.trim())})`,
      );
    return Number(m[1]) * UNIT_MS[m[2]!]!;
  });
  if (out.length === 0) throw new ConfigError(`${name} must list at least one duration`);
  return out;
}

/** Where the data lives: the embedded SQLite file or a PostgreSQL URL. */
export type DatabaseTarget = { dialect: 'sqlite'; file: string } | { dialect: 'postgres'; url: string };

/** Resolves the database URL (or its absence) to a dialect and a location. */
export function databaseTarget(config: Config): DatabaseTarget {
  const url = config.databaseUrl;
  if (!url)
    return {
      dialect: 'sqlite',
      file: path.resolve(config.dataDir, 'sealpost.db'),
    };
  if (/^postgres(ql)?:\/\//.test(url)) return { dialect: 'postgres', url };
  const m = /^sqlite:(?:\/\/)?(.+)$/.exec(url);
  if (m?.[1])
    return {
      dialect: 'sqlite',
      file: m[1] === ':memory:' ? ':memory:' : path.resolve(m[1]),
    };
  throw new ConfigError(
    `SEALPOST_DATABASE_URL must start with postgres://, postgresql:// or sqlite: (got ${JSON.stringify(url)})`,
  );
}

/** The public base URL without a trailing slash. */
export function publicBaseUrl(config: Config): string {
  return (config.publicUrl || `http://localhost:${config.httpPort}`).replace(/\/+$/, '');
}
