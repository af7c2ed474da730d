/**
 * The `sealpost` command as a user runs it: `node bin/sealpost.js ...` in a child process, on the run's dialect,
 * with only the SEALPOST_ variables each case sets. Covers the administrative commands, configuration errors,
 * migrations, and `start` serving HTTP and stopping cleanly on SIGTERM.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECT, createScratchDatabase } from '../test/database.ts';
import { smtpBanner } from './cli.test-support.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = 'bin/sealpost.js';
// A guard against a hung command, not a speed check: CI machines are shared and loaded.
const COMMAND_TIMEOUT_MS = 45_000;

/** Where one case keeps its data: the SEALPOST_ variables that point at it, and how to remove it. */
interface Store {
  env: Record<string, string>;
  /** The data directory of an embedded (SQLite) store. */
  dataDir?: string;
  drop(): Promise<void>;
}

/** A fresh, empty store of the run's dialect: a data directory for SQLite, a scratch database and a master key for PostgreSQL. */
async function createStore(): Promise<Store> {
  if (TEST_DIALECT === 'postgres') {
    const scratch = await createScratchDatabase('postgres');
    return {
      env: { SEALPOST_DATABASE_URL: scratch.url, SEALPOST_MASTER_KEY: randomBytes(32).toString('base64') },
      drop: () => scratch.drop(),
    };
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sealpost-cli-'));
  return {
    env: { SEALPOST_DATA_DIR: dataDir },
    dataDir,
    drop: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

/** This process's environment without any SEALPOST_ variable, plus the given ones. */
function commandEnv(vars: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env))
    if (!name.startsWith('SEALPOST_')) env[name] = value;
  return { ...env, ...vars };
}

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `sealpost <args>` to completion. */
function sealpost(store: Store, args: string[], extra: Record<string, string> = {}): Promise<Result> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: ROOT, env: commandEnv({ ...store.env, ...extra }), timeout: COMMAND_TIMEOUT_MS },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr }),
    );
  });
}

/** Runs `sealpost <args> --json`, expects success and returns the parsed output. */
async function sealpostJson<T = Record<string, unknown>>(store: Store, args: string[]): Promise<T> {
  const r = await sealpost(store, [...args, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as T;
}

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const children = new Set<ChildProcess>();

/** A long-running `sealpost` process and its combined output. */
interface Running {
  child: ChildProcess;
  output(): string;
  /** Sends SIGTERM and returns the exit code, or 'timeout' when the process is still running after `ms`. */
  terminate(ms: number): Promise<number | null | 'timeout'>;
}

function spawnSealpost(store: Store, args: string[], extra: Record<string, string>): Running {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: commandEnv({ ...store.env, ...extra }),
  });
  children.add(child);
  let output = '';
  child.stdout.on('data', (b: Buffer) => (output += b.toString()));
  child.stderr.on('data', (b: Buffer) => (output += b.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  void exited.then(() => children.delete(child));
  return {
    child,
    output: () => output,
    async terminate(ms) {
      child.kill('SIGTERM');
      return Promise.race([exited, delay(ms).then(() => 'timeout' as const)]);
    },
  };
}

/** Waits until `check` is true, failing after `ms` or when the process exits first. */
async function waitUntil(
  running: Running,
  what: string,
  ms: number,
  check: () => Promise<boolean> | boolean,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (running.child.exitCode !== null)
      throw new Error(`sealpost exited (${running.child.exitCode}) before ${what}:\n${running.output()}`);
    if (await check()) return;
    await delay(50);
  }
  throw new Error(`sealpost did not reach "${what}" within ${ms} ms:\n${running.output()}`);
}

async function answers(url: string, init: RequestInit = {}): Promise<Response | undefined> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(5000) });
  } catch {
    return undefined;
  }
}

// Suites run side by side, so a process a failed test left running is killed only once every suite is done.
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
});

// Each top-level suite has its own store and runs alongside the others; the administration steps build on each other and run in order.
describe.concurrent(`sealpost administration and start (${TEST_DIALECT})`, () => {
  let store: Store;
  let keyId: string;
  let key: string;

  beforeAll(async () => {
    store = await createStore();
  });
  afterAll(async () => {
    await store?.drop();
  });

  describe.sequential('in order', () => {
    it('creates an account and prints exactly its id and username', async () => {
      const r = await sealpost(store, ['account', 'create', '--username', 'acme', '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('{"customer_id":1,"username":"acme"}\n');
      expect(typeof JSON.parse(r.stdout).customer_id).toBe('number');
      if (store.dataDir) {
        expect(existsSync(path.join(store.dataDir, 'sealpost.db'))).toBe(true);
        expect(existsSync(path.join(store.dataDir, 'master.key'))).toBe(true);
      }
    });

    it('refuses a reserved username with exit code 1 and a clear message', async () => {
      const r = await sealpost(store, ['account', 'create', '--username', 'email', '--json']);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('error: username "email" is reserved');
    });

    it('refuses a duplicate username with exit code 1 and a clear message', async () => {
      const r = await sealpost(store, ['account', 'create', '--username', 'ACME']);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('error: username "acme" is already taken');
    });

    it('adds a verified domain and prints the four DNS records to publish', async () => {
      const d = await sealpostJson<{
        domain: string;
        verified: boolean;
        dkim_selector: string;
        dns_records: { type: string; name: string; value: string }[];
      }>(store, ['domain', 'add', '--account', 'acme', '--domain', 'acme.example.com', '--verified']);
      expect(d.domain).toBe('acme.example.com');
      expect(d.verified).toBe(true);
      expect(d.dns_records).toHaveLength(4);
      expect(d.dns_records[0]).toMatchObject({ type: 'TXT', name: '_sealpost.acme.example.com' });
      expect(d.dns_records[0]!.value).toMatch(/^sealpost-verification=\S+$/);
      expect(d.dns_records[1]).toMatchObject({
        type: 'TXT',
        name: `${d.dkim_selector}._domainkey.acme.example.com`,
      });
      expect(d.dns_records[1]!.value).toMatch(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/]+=*$/);
      expect(d.dns_records[2]).toMatchObject({ type: 'TXT', name: 'acme.example.com', purpose: 'spf' });
      expect(d.dns_records[2]!.value).toMatch(/^v=spf1 a:\S+ ~all$/);
      expect(d.dns_records[3]).toMatchObject({
        type: 'TXT',
        name: '_dmarc.acme.example.com',
        purpose: 'dmarc',
      });
      expect(d.dns_records[3]!.value).toMatch(/^v=DMARC1; p=none;/);
    });

    it('adds a domain signing with RSA and Ed25519 and prints both DKIM records', async () => {
      const d = await sealpostJson<{
        dkim_signing: string;
        dns_records: { name: string; value: string; purpose: string }[];
      }>(store, [
        'domain',
        'add',
        '--account',
        'acme',
        '--domain',
        'dual.acme.example.com',
        '--dkim',
        'both',
      ]);
      expect(d.dkim_signing).toBe('both');
      expect(d.dns_records.filter((r) => r.purpose === 'dkim').map((r) => r.value)).toEqual([
        expect.stringMatching(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/]+=*$/),
        expect.stringMatching(/^v=DKIM1; k=ed25519; p=[A-Za-z0-9+/]{43}=$/),
      ]);
      const bad = await sealpost(store, [
        'domain',
        'add',
        '--account',
        'acme',
        '--domain',
        'x.example',
        '--dkim',
        'dsa',
      ]);
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toContain('rsa, ed25519, both');
    });

    it('adds a domain unverified without --verified', async () => {
      const d = await sealpostJson(store, [
        'domain',
        'add',
        '--account',
        'acme',
        '--domain',
        'news.acme.example.com',
      ]);
      expect(d).toMatchObject({ domain: 'news.acme.example.com', verified: false, verified_at: null });
    });

    it('creates a key and prints its id and value', async () => {
      const k = await sealpostJson<{ id: string; key: string }>(store, [
        'key',
        'create',
        '--account',
        'acme',
        '--domain',
        'acme.example.com',
        '--scopes',
        'email',
      ]);
      expect(k.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(k.key).toMatch(/^sp_\S{20,}$/);
      keyId = k.id;
      key = k.key;
    });

    it('lists keys by id and never prints a key value', async () => {
      const r = await sealpost(store, ['key', 'list', '--account', 'acme', '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout + r.stderr).not.toContain(key);
      const list = JSON.parse(r.stdout) as { id: string; revoked_at: string | null }[];
      expect(list).toEqual([expect.objectContaining({ id: keyId, revoked_at: null })]);
    });

    it('serves HTTP and SMTP, accepts the key made on the command line, and stops with 0 on SIGTERM', async () => {
      const port = await freePort();
      const smtpPort = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const server = spawnSealpost(store, ['start'], {
        SEALPOST_HTTP_HOST: '127.0.0.1',
        SEALPOST_HTTP_PORT: String(port),
        SEALPOST_SMTP_HOST: '127.0.0.1',
        SEALPOST_SMTP_SUBMISSION_PORT: String(smtpPort),
        SEALPOST_SMTP_TLS_PORT: '0',
        SEALPOST_SMTP_PORT_25: '0',
      });
      await waitUntil(
        server,
        '/healthz answering',
        30_000,
        async () => (await answers(`${base}/healthz`))?.status === 200,
      );
      expect(await smtpBanner(smtpPort)).toMatch(/^220 .*ESMTP/);

      expect((await answers(`${base}/readyz`))?.status).toBe(200);
      const authorised = await answers(`${base}/v1/email/messages`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(authorised?.status).toBe(404);
      const wrong = await answers(`${base}/v1/email/messages`, {
        headers: { authorization: `Bearer sp_${randomBytes(30).toString('base64url')}` },
      });
      expect(wrong?.status).toBe(401);
      expect(await wrong?.json()).toMatchObject({ error_code: 'auth.invalid_key' });

      expect(await server.terminate(5000)).toBe(0);
      expect(await answers(`${base}/healthz`)).toBeUndefined();
    });

    it('revokes a key, after which the list shows when', async () => {
      const r = await sealpost(store, ['key', 'revoke', keyId]);
      expect(r.code, r.stderr).toBe(0);
      const list = await sealpostJson<{ id: string; revoked_at: string | null }[]>(store, [
        'key',
        'list',
        '--account',
        'acme',
      ]);
      expect(list.find((k) => k.id === keyId)?.revoked_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    });
  });
});

describe.concurrent(`sealpost migrate (${TEST_DIALECT})`, () => {
  let store: Store;

  beforeAll(async () => {
    store = await createStore();
  });
  afterAll(async () => {
    await store?.drop();
  });

  it('applies the foundation migration to a fresh database, then nothing', async () => {
    const first = await sealpost(store, ['migrate', '--json']);
    expect(first.code, first.stderr).toBe(0);
    const { applied } = JSON.parse(first.stdout) as { applied: string[] };
    expect(applied[0]).toBe('0001_foundation');
    expect(await sealpostJson(store, ['migrate'])).toEqual({ applied: [] });
    if (store.dataDir) {
      expect(first.stderr).toContain('BACK IT UP');
      expect(existsSync(path.join(store.dataDir, 'sealpost.db'))).toBe(true);
      expect(
        Buffer.from(readFileSync(path.join(store.dataDir, 'master.key'), 'utf8').trim(), 'base64'),
      ).toHaveLength(32);
    }
  });
});

describe.concurrent(`sealpost start --roles worker and configuration errors (${TEST_DIALECT})`, () => {
  let store: Store;

  beforeAll(async () => {
    store = await createStore();
  });
  afterAll(async () => {
    await store?.drop();
  });

  it('exits 2 naming the variable when the configuration is bad', async () => {
    const r = await sealpost(store, ['account', 'list', '--json'], { SEALPOST_HTTP_PORT: 'abc' });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('SEALPOST_HTTP_PORT');
  });

  it('runs only the worker with --roles worker, without HTTP, and stops with 0 on SIGTERM', async () => {
    const port = await freePort();
    const worker = spawnSealpost(store, ['start', '--roles', 'worker'], {
      SEALPOST_HTTP_HOST: '127.0.0.1',
      SEALPOST_HTTP_PORT: String(port),
    });
    await waitUntil(worker, 'worker role started', 15_000, () =>
      worker.output().includes('worker role started'),
    );

    expect(worker.output()).not.toContain('api role listening');
    expect(await answers(`http://127.0.0.1:${port}/healthz`)).toBeUndefined();
    expect(await worker.terminate(5000)).toBe(0);
  });
});
