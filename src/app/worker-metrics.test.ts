/**
 * A worker in a process of its own (`sealpost start --roles worker`) serves its pipeline counters on
 * SEALPOST_METRICS_PORT: a message accepted by the api (this process) and delivered by that worker is counted on the
 * worker's /metrics, where an api node never sees it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECT } from '../test/database.ts';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { sendMessage, waitUntilFinished } from '../delivery/delivery.test-support.ts';
import { waitFor } from '../test/wait.ts';
import { freePort } from '../test/ports.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The value of one sample, 0 when absent. */
function sample(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(name + ' '));
  return line ? Number(line.slice(name.length + 1)) : 0;
}

describe(`pipeline counters of a worker process of its own (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let acct: TestAccount;
  let worker: ChildProcess;
  let metricsUrl: string;
  let stderr = '';

  beforeAll(async () => {
    t = await createTestApp();
    acct = await t.createAccount();
    const port = await freePort();
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('SEALPOST_')) env[k] = v;
    Object.assign(env, {
      SEALPOST_DATABASE_URL: t.scratch.url,
      SEALPOST_MASTER_KEY: t.ctx.config.masterKey!,
      SEALPOST_LOG_LEVEL: 'warn',
      SEALPOST_HTTP_HOST: '127.0.0.1',
      SEALPOST_METRICS_PORT: String(port),
      SEALPOST_WORKER_POLL_MS: '50',
    });
    worker = spawn(process.execPath, ['bin/sealpost.js', 'start', '--roles', 'worker'], { cwd: ROOT, env });
    worker.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    await waitFor(async () => (await fetch(metricsUrl).catch(() => null))?.ok === true, 30_000, 100);
  }, 40_000);
  afterAll(async () => {
    if (worker && worker.exitCode === null) {
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      worker.kill('SIGTERM');
      await exited;
    }
    await t?.close();
  });

  it('counts on the worker what the worker delivered, with /healthz beside it', async () => {
    const accepted = 'sealpost_messages_accepted_total{lane="transactional"}';
    const delivered = 'sealpost_messages_delivered_total{lane="transactional"}';
    const before = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    const id = await sendMessage(t, acct, {});
    await waitUntilFinished(t, id, 20_000);
    await waitFor(async () => sample(await (await fetch(metricsUrl)).text(), delivered) === 1, 10_000, 100);
    const text = await (await fetch(metricsUrl)).text();
    expect(sample(text, 'sealpost_delivery_attempt_duration_seconds_count{transport="capture"}')).toBe(1);
    expect(text).toContain('# TYPE sealpost_queue_depth gauge');
    expect((await fetch(metricsUrl.replace('/metrics', '/healthz'))).status).toBe(200);
    // The api process accepted the message but delivered nothing: its own counters cannot show the delivery.
    const api = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    // The counters are the test process's own, shared with the files that ran before in this worker: compare.
    expect(sample(api, accepted) - sample(before, accepted)).toBe(1);
    expect(sample(api, delivered) - sample(before, delivered)).toBe(0);
    expect(stderr).not.toMatch(/error/i);
  });
});
