/**
 * `sealpost start` as a user runs it, when it cannot start: each usual cause stops it with one line on standard error
 * naming the cause and the setting, and no stack trace. Also `--version` and required options in `--help`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECT, createScratchDatabase, type ScratchDatabase } from '../test/database.ts';
import { runSealpostWith, type CommandRun } from './cli.test-support.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

type Result = CommandRun;

/** Runs `sealpost <args>` with only the given SEALPOST_ variables. */
const sealpost = (args: string[], vars: Record<string, string>) => runSealpostWith(vars, args, 25_000);

/** Asserts the run stopped with exactly one line on stderr that contains every one of `parts`, and no stack trace anywhere. */
function expectOneLine(r: Result, code: number, ...parts: string[]): void {
  expect(r.code, r.stderr).toBe(code);
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  for (const part of parts) expect(lines[0]).toContain(part);
  expect(r.stdout + r.stderr).not.toMatch(/\n\s+at /);
}

describe(`sealpost start refusing to start (${TEST_DIALECT})`, () => {
  let scratch: ScratchDatabase;
  let dir: string;
  let base: Record<string, string>;
  let busy: net.Server;
  let busyPort: number;

  beforeAll(async () => {
    scratch = await createScratchDatabase();
    dir = mkdtempSync(path.join(tmpdir(), 'sealpost-start-'));
    base = {
      SEALPOST_DATABASE_URL: scratch.url,
      SEALPOST_MASTER_KEY: randomBytes(32).toString('base64'),
      SEALPOST_DATA_DIR: path.join(dir, 'data'),
      SEALPOST_HTTP_HOST: '127.0.0.1',
      SEALPOST_SMTP_HOST: '127.0.0.1',
      SEALPOST_HTTP_PORT: '0',
      SEALPOST_SMTP_SUBMISSION_PORT: '0',
      SEALPOST_SMTP_TLS_PORT: '0',
      SEALPOST_SMTP_PORT_25: '0',
    };
    busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    busyPort = (busy.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => busy?.close(resolve));
    await scratch?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a master key that does not open the data stored, naming the key that sealed it', async () => {
    const first = randomBytes(32);
    const other = randomBytes(32).toString('base64');
    const fingerprint = (k: Buffer) => createHash('sha256').update(k).digest('hex').slice(0, 16);
    const db = await createScratchDatabase();
    try {
      const vars = { ...base, SEALPOST_DATABASE_URL: db.url };
      // The first command that opens the database records its key's check value.
      const r1 = await sealpost(['user', 'list'], { ...vars, SEALPOST_MASTER_KEY: first.toString('base64') });
      expect(r1.code, r1.stderr).toBe(0);
      const r2 = await sealpost(['start'], { ...vars, SEALPOST_MASTER_KEY: other });
      expectOneLine(
        r2,
        1,
        'cannot start: the master key (SEALPOST_MASTER_KEY, fingerprint ',
        'does not open the data already stored',
        `sealed with the key of fingerprint ${fingerprint(first)}`,
      );
      // An administrative command with the wrong key is refused the same way before it writes anything.
      const r3 = await sealpost(['user', 'list'], { ...vars, SEALPOST_MASTER_KEY: other });
      expectOneLine(r3, 1, 'does not open the data already stored');
    } finally {
      await db.drop();
    }
  });

  it('names SEALPOST_HTTP_PORT when the HTTP port is in use', async () => {
    const r = await sealpost(['start'], { ...base, SEALPOST_HTTP_PORT: String(busyPort) });
    expectOneLine(r, 1, 'cannot start', `port ${busyPort}`, 'already in use', 'SEALPOST_HTTP_PORT');
  });

  it('finds a busy port before it opens the database or starts any role', async () => {
    const data = path.join(dir, 'busy-before-open');
    const r = await sealpost(['start', '--roles', 'worker,smtp'], {
      ...base,
      SEALPOST_DATABASE_URL: '',
      SEALPOST_DATA_DIR: data,
      SEALPOST_SMTP_TLS_PORT: String(busyPort),
    });
    expectOneLine(r, 1, `port ${busyPort}`, 'already in use', 'SEALPOST_SMTP_TLS_PORT');
    expect(existsSync(path.join(data, 'sealpost.db'))).toBe(false);
  });

  it('names SEALPOST_SMTP_SUBMISSION_PORT when the submission port is in use', async () => {
    const r = await sealpost(['start', '--roles', 'smtp'], {
      ...base,
      SEALPOST_SMTP_SUBMISSION_PORT: String(busyPort),
    });
    expectOneLine(r, 1, `port ${busyPort}`, 'SEALPOST_SMTP_SUBMISSION_PORT');
  });

  it('names SEALPOST_METRICS_PORT when a worker process cannot open its metrics port', async () => {
    const r = await sealpost(['start', '--roles', 'worker'], {
      ...base,
      SEALPOST_METRICS_PORT: String(busyPort),
    });
    expectOneLine(r, 1, `port ${busyPort}`, 'already in use', 'SEALPOST_METRICS_PORT');
  });

  it('names SEALPOST_RELAY_URL when the relay transport has no relay URL', async () => {
    const r = await sealpost(['start'], { ...base, SEALPOST_TRANSPORT: 'relay' });
    expectOneLine(r, 2, 'SEALPOST_RELAY_URL', 'relay');
  });

  it('names SEALPOST_DATA_DIR when the data directory cannot be written', async () => {
    const file = path.join(dir, 'a-file');
    writeFileSync(file, 'not a directory');
    const r = await sealpost(['start'], {
      SEALPOST_DATA_DIR: path.join(file, 'data'),
      SEALPOST_HTTP_PORT: '0',
    });
    expectOneLine(r, 1, 'data directory', path.join(file, 'data'), 'not writable', 'SEALPOST_DATA_DIR');
  });

  it('names SEALPOST_DATABASE_URL, without its password, when the database cannot be reached', async () => {
    const r = await sealpost(['start'], {
      ...base,
      SEALPOST_DATABASE_URL: 'postgres://sealpost:s3cret@127.0.0.1:1/sealpost',
    });
    expectOneLine(r, 1, 'unreachable', 'SEALPOST_DATABASE_URL', '127.0.0.1:1');
    expect(r.stderr).not.toContain('s3cret');
  });
});

describe('sealpost --version and --help', () => {
  it('prints the version of package.json', async () => {
    const r = await sealpost(['--version'], {});
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
  });

  it('marks required options as required and leaves optional ones unmarked', async () => {
    const r = await sealpost(['domain', 'add', '--help'], {});
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--account <username>.*\(required\)/);
    expect(r.stdout).toMatch(/--domain <domain>.*\(required\)/);
    expect(r.stdout).not.toMatch(/--json.*\(required\)/);
  });
});
