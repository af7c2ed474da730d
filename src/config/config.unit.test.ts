import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CONFIG_FILE_ENV, KEYS, type KeySpec } from './schema.ts';
import { ConfigError, databaseTarget, loadConfig } from './load.ts';

const DOC = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
const SPECS = Object.entries(KEYS) as [string, KeySpec][];

/** Table rows of the doc that mention `name` in backticks. */
function rowsNaming(name: string): string[] {
  return DOC.split('\n').filter((line) => line.startsWith('|') && line.includes(`\`${name}\``));
}

/** Runs `fn` and returns the ConfigError it throws. */
function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError, nothing was thrown');
}

const durationMs = (d: string): number => {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(d)!;
  return Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 'ms']!;
};

describe('docs/configuration.md', () => {
  it.each(SPECS)('documents %s with its variable and default on one table row', (prop, spec) => {
    const rows = rowsNaming(spec.env);
    expect(rows, `${spec.env} has one table row`).toHaveLength(1);
    const row = rows[0]!;
    expect(row).toContain(`\`${prop}\``);
    if (spec.default === undefined) expect(row).toContain('_(empty)_');
    else expect(row).toContain(`\`${String(spec.default)}\``);
  });

  it('names no SEALPOST_ variable that is not a key', () => {
    const known = new Set<string>([...SPECS.map(([, s]) => s.env), CONFIG_FILE_ENV]);
    const mentioned = new Set(DOC.match(/SEALPOST_[A-Z0-9_]*[A-Z0-9]/g) ?? []);
    const unknown = [...mentioned].filter((n) => !known.has(n) && !/^SEALPOST_(TEST|BENCH)$/.test(n));
    expect(unknown).toEqual([]);
  });
});

describe('loadConfig', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sealpost-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function configFile(name: string, text: string): string {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    return file;
  }

  it('gives every key its default when nothing is set', () => {
    const config = loadConfig({});
    for (const [prop, spec] of SPECS) {
      const value = (config as Record<string, unknown>)[prop];
      if (spec.kind === 'durations')
        expect(value, prop).toEqual(String(spec.default).split(',').map(durationMs));
      else if (spec.kind === 'proxies') expect(value, prop).toEqual([]);
      else expect(value, prop).toBe(spec.default);
    }
  });

  it('parses a duration list into milliseconds and rejects a bad one naming the key', () => {
    expect(
      loadConfig({ SEALPOST_DELIVERY_RETRY_SCHEDULE: '500ms, 2s,1m,1h,1d' }).deliveryRetrySchedule,
    ).toEqual([500, 2000, 60_000, 3_600_000, 86_400_000]);
    expect(() => loadConfig({ SEALPOST_DELIVERY_RETRY_SCHEDULE: '1m,soon' })).toThrow(
      /SEALPOST_DELIVERY_RETRY_SCHEDULE/,
    );
  });

  it('returns a frozen object', () => {
    expect(Object.isFrozen(loadConfig({}))).toBe(true);
  });

  it('parses integers, booleans and enumerations from the environment', () => {
    const config = loadConfig({
      SEALPOST_HTTP_PORT: ' 9090 ',
      SEALPOST_LOG_LEVEL: 'debug',
      SEALPOST_SQLITE_SYNCHRONOUS: 'NORMAL',
      SEALPOST_DATA_DIR: '/srv/sealpost',
    });
    expect(config.httpPort).toBe(9090);
    expect(config.logLevel).toBe('debug');
    expect(config.sqliteSynchronous).toBe('NORMAL');
    expect(config.dataDir).toBe('/srv/sealpost');
  });

  it('reads trusted proxies as a list, with true meaning a proxy on the same host', () => {
    expect(loadConfig({ SEALPOST_TRUST_PROXY: 'off' }).trustProxy).toEqual([]);
    expect(loadConfig({ SEALPOST_TRUST_PROXY: 'YES' }).trustProxy).toEqual(['loopback']);
    expect(loadConfig({ SEALPOST_TRUST_PROXY: ' 10.0.0.0/8, 192.0.2.7 ,::1' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '192.0.2.7',
      '::1',
    ]);
    expect(loadConfig({}, {}).trustProxy).toEqual([]);
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ SEALPOST_HTTP_PORT: '' }).httpPort).toBe(KEYS.httpPort.default);
  });

  it('lets overrides win over the environment', () => {
    expect(loadConfig({ SEALPOST_HTTP_PORT: '9090' }, { httpPort: 0 }).httpPort).toBe(0);
  });

  it.each([
    ['SEALPOST_HTTP_PORT', 'abc'],
    ['SEALPOST_HTTP_PORT', '80.5'],
    ['SEALPOST_HTTP_PORT', '70000'],
    ['SEALPOST_DATABASE_POOL_SIZE', '0'],
    ['SEALPOST_BODY_LIMIT_BYTES', '1e6'],
    ['SEALPOST_TRUST_PROXY', 'maybe'],
    ['SEALPOST_TRUST_PROXY', '10.0.0.0/33'],
    ['SEALPOST_TRUST_PROXY', '10.0.0.1,,10.0.0.2'],
    ['SEALPOST_LOG_LEVEL', 'verbose'],
    ['SEALPOST_SQLITE_SYNCHRONOUS', 'full'],
  ])('rejects %s=%s with an error naming the variable', (name, value) => {
    const err = configError(() => loadConfig({ [name]: value }));
    expect(err.message).toContain(name);
    expect(err.message).toContain(value);
  });

  it.each([
    ['SEALPOST_RELAY_URL', 'smtp//mail.example.org:587', 'must be a URL starting with smtp:// or smtps://'],
    ['SEALPOST_RELAY_URL', 'http://mail.example.org', 'must start with smtp:// or smtps:// (got "http:")'],
    ['SEALPOST_PUBLIC_URL', 'mail.example.org', 'must be a URL starting with http:// or https://'],
    ['SEALPOST_PUBLIC_URL', 'ftp://mail.example.org', 'must start with http:// or https:// (got "ftp:")'],
  ])('rejects %s=%s with one line saying what a URL there looks like', (name, value, says) => {
    const err = configError(() => loadConfig({ [name]: value }));
    expect(err.message).toBe(`${name} ${says}`);
  });

  it('never repeats the password of a relay URL it refuses', () => {
    const err = configError(() => loadConfig({ SEALPOST_RELAY_URL: 'imap://user:s3cret@mail.example.org' }));
    expect(err.message).not.toContain('s3cret');
  });

  it('accepts relay and public URLs of the right schemes', () => {
    const c = loadConfig({
      SEALPOST_RELAY_URL: 'smtps://user:pass@mail.example.org:465',
      SEALPOST_PUBLIC_URL: 'https://mail.example.org',
    });
    expect([c.relayUrl, c.publicUrl]).toEqual([
      'smtps://user:pass@mail.example.org:465',
      'https://mail.example.org',
    ]);
  });

  it('rejects an unknown SEALPOST_ variable, naming it', () => {
    const err = configError(() => loadConfig({ SEALPOST_X: '1' }));
    expect(err.message).toContain('SEALPOST_X');
    expect(err.message).toContain('unknown configuration key');
  });

  it('allows the test and benchmark variables and ignores variables without the prefix', () => {
    expect(() =>
      loadConfig({ SEALPOST_TEST_DB: 'postgres', SEALPOST_BENCH_SIZE: '10', HTTP_PORT: 'abc', PATH: '/bin' }),
    ).not.toThrow();
  });

  it('uses values from the configuration file, by property name', () => {
    const file = configFile(
      'file.json',
      JSON.stringify({ httpPort: 9191, trustProxy: 'true', publicUrl: 'https://mail.example.com' }),
    );
    const config = loadConfig({ [CONFIG_FILE_ENV]: file });
    expect(config.httpPort).toBe(9191);
    expect(config.trustProxy).toEqual(['loopback']);
    expect(config.publicUrl).toBe('https://mail.example.com');
    expect(config.logLevel).toBe(KEYS.logLevel.default);
  });

  it('lets the environment win over the configuration file', () => {
    const file = configFile('both.json', JSON.stringify({ httpPort: 9191, logLevel: 'warn' }));
    const config = loadConfig({ [CONFIG_FILE_ENV]: file, SEALPOST_HTTP_PORT: '9292' });
    expect(config.httpPort).toBe(9292);
    expect(config.logLevel).toBe('warn');
  });

  it('names the property and the file for a bad value in the file', () => {
    const file = configFile('bad-value.json', JSON.stringify({ httpPort: 70000 }));
    const err = configError(() => loadConfig({ [CONFIG_FILE_ENV]: file }));
    expect(err.message).toContain('httpPort');
    expect(err.message).toContain(file);
  });

  it('rejects a configuration file that is not valid JSON', () => {
    const file = configFile('broken.json', '{ "httpPort": 8080,');
    const err = configError(() => loadConfig({ [CONFIG_FILE_ENV]: file }));
    expect(err.message).toContain(CONFIG_FILE_ENV);
    expect(err.message).toContain('not valid JSON');
  });

  it('rejects a configuration file that holds no object', () => {
    const file = configFile('array.json', '[1, 2]');
    expect(configError(() => loadConfig({ [CONFIG_FILE_ENV]: file })).message).toContain('JSON object');
  });

  it('rejects an unknown property in the configuration file, naming it', () => {
    const file = configFile('unknown.json', JSON.stringify({ SEALPOST_HTTP_PORT: 8080 }));
    expect(configError(() => loadConfig({ [CONFIG_FILE_ENV]: file })).message).toContain(
      'SEALPOST_HTTP_PORT (in',
    );
  });

  it('rejects a configuration file that cannot be read', () => {
    const file = path.join(dir, 'missing.json');
    const err = configError(() => loadConfig({ [CONFIG_FILE_ENV]: file }));
    expect(err.message).toContain(CONFIG_FILE_ENV);
    expect(err.message).toContain(file);
  });
});

describe('databaseTarget', () => {
  const target = (url: string | undefined, dataDir = '/var/lib/sealpost') =>
    databaseTarget(
      loadConfig({
        SEALPOST_DATA_DIR: dataDir,
        ...(url === undefined ? {} : { SEALPOST_DATABASE_URL: url }),
      }),
    );

  it('uses the embedded SQLite file in the data directory when no URL is set', () => {
    expect(target(undefined)).toEqual({ dialect: 'sqlite', file: '/var/lib/sealpost/sealpost.db' });
    expect(target('')).toEqual({ dialect: 'sqlite', file: '/var/lib/sealpost/sealpost.db' });
    expect(target(undefined, 'rel-data')).toEqual({
      dialect: 'sqlite',
      file: path.resolve('rel-data', 'sealpost.db'),
    });
  });

  it('reads absolute and relative sqlite: URLs', () => {
    expect(target('sqlite:///srv/data/s.db')).toEqual({ dialect: 'sqlite', file: '/srv/data/s.db' });
    expect(target('sqlite:data/s.db')).toEqual({ dialect: 'sqlite', file: path.resolve('data/s.db') });
  });

  it('reads postgres: and postgresql: URLs as given', () => {
    const url = 'postgres://sealpost:secret@db.internal:5432/sealpost?sslmode=require';
    expect(target(url)).toEqual({ dialect: 'postgres', url });
    expect(target('postgresql://u@h/db')).toEqual({ dialect: 'postgres', url: 'postgresql://u@h/db' });
  });

  it.each(['mysql://u@h/db', 'sqlite:', 'postgres:db', '/srv/data/s.db'])(
    'rejects %s naming SEALPOST_DATABASE_URL',
    (url) => {
      expect(configError(() => target(url)).message).toContain('SEALPOST_DATABASE_URL');
    },
  );
});
