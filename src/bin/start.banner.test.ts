/**
 * `sealpost start` as it starts: the log names the version and the commit, and every pipeline counter is served from
 * the first scrape, at zero, before any event (a fresh process, so nothing else has touched the counters).
 */
import { spawn, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createScratchDatabase, type ScratchDatabase } from '../test/database.ts';
import { waitFor } from '../test/wait.ts';
import { freePort } from '../test/ports.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let scratch: ScratchDatabase;
let dir: string;

beforeAll(async () => {
  scratch = await createScratchDatabase();
  dir = mkdtempSync(path.join(tmpdir(), 'sealpost-banner-'));
});
afterAll(async () => {
  await scratch?.drop();
  rmSync(dir, { recursive: true, force: true });
});

it('logs the version and commit at start, and serves every pipeline counter at zero from the start', async () => {
  const metricsPort = await freePort();
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('SEALPOST_')) env[k] = v;
  Object.assign(env, {
    SEALPOST_DATABASE_URL: scratch.url,
    SEALPOST_MASTER_KEY: randomBytes(32).toString('base64'),
    SEALPOST_DATA_DIR: path.join(dir, 'data'),
    SEALPOST_HTTP_HOST: '127.0.0.1',
    SEALPOST_METRICS_PORT: String(metricsPort),
  });
  const child = spawn(process.execPath, ['bin/sealpost.js', 'start', '--roles', 'worker'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  try {
    const line = await waitFor(
      () => out.split('\n').find((l) => l.includes('"starting sealpost"')),
      45_000,
      20,
      'the start line',
    );
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const head = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).trim();
    expect(JSON.parse(line)).toMatchObject({ version: pkg.version, commit: head });

    await waitFor(() => out.includes('metrics listening'), 20_000, 20, 'metrics listening');
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    for (const series of [
      'sealpost_messages_accepted_total{lane="transactional"} 0',
      'sealpost_messages_delivered_total{lane="marketing"} 0',
      'sealpost_messages_bounced_total{lane="transactional"} 0',
      'sealpost_messages_suppressed_total{lane="transactional"} 0',
      'sealpost_webhook_posts_total{outcome="network_error"} 0',
      'sealpost_delivery_attempt_duration_seconds_count{transport="relay"} 0',
      'sealpost_form_submissions_total 0',
    ])
      expect(text.split('\n'), series).toContain(series);
  } finally {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }
}, 90_000);
