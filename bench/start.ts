/**
 * Start-up benchmark: `sealpost start` (the installed bundle, all roles, default configuration, a fresh data
 * directory each time after the first start has migrated it) run `count` times as a user starts it, reporting the
 * time from spawn to the first 200 from /healthz, the CPU time (user + system) the process used until then, and the
 * resident memory (VmRSS) two seconds later, idle. Baseline in
 * the same run: a bare Fastify server answering /healthz, started the same way. Targets: start < 1 s, idle RSS < 120 MiB.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, type BenchRow } from './support.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const BARE_FASTIFY = `
const fastify = require(${JSON.stringify(path.join(ROOT, 'node_modules/fastify'))})();
fastify.get('/healthz', async () => ({ status: 'ok' }));
fastify.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
`;

/** CPU time (user + system) a process has used so far, in ms (Linux: /proc/<pid>/stat, in clock ticks of 10 ms). */
function cpuMs(child: ChildProcess): number {
  const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function rssMiB(child: ChildProcess): number {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

/** Spawns a server, waits for /healthz, measures, stops it. */
async function startOnce(
  args: string[],
  env: NodeJS.ProcessEnv,
  port: number,
  cwd: string,
): Promise<{ ms: number; cpu: number; rss: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'ignore', 'inherit'] });
  try {
    const deadline = Date.now() + 30_000;
    while (
      !(await fetch(`http://127.0.0.1:${port}/healthz`)
        .then((r) => r.ok)
        .catch(() => false))
    ) {
      if (Date.now() > deadline) throw new Error(`${args.join(' ')} did not answer /healthz within 30 s`);
      await new Promise((r) => setTimeout(r, 10));
    }
    const ms = performance.now() - started;
    const cpu = cpuMs(child);
    await new Promise((r) => setTimeout(r, 2000));
    return { ms, cpu, rss: rssMiB(child) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Runs the start-up benchmark `count` times per side. */
export async function startBench(count: number): Promise<BenchRow[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'sealpost-start-'));
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const env = {
    ...process.env,
    PORT: String(port),
    SEALPOST_DATA_DIR: path.join(dir, 'data'),
    SEALPOST_HTTP_PORT: String(port),
    SEALPOST_SMTP_SUBMISSION_PORT: '0',
    SEALPOST_SMTP_TLS_PORT: '0',
    SEALPOST_SMTP_PORT_25: '0',
  };
  const ours: { ms: number; cpu: number; rss: number }[] = [];
  const bare: { ms: number; cpu: number; rss: number }[] = [];
  try {
    await startOnce([path.join(ROOT, 'bin/sealpost.js'), 'start'], env, port, dir); // creates and migrates
    for (let i = 0; i < count; i++) {
      bare.push(await startOnce(['-e', BARE_FASTIFY], env, port, dir));
      ours.push(await startOnce([path.join(ROOT, 'bin/sealpost.js'), 'start'], env, port, dir));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const ms = median(ours.map((r) => r.ms));
  const rss = median(ours.map((r) => r.rss));
  const cpu = median(ours.map((r) => r.cpu));
  const bareMs = median(bare.map((r) => r.ms));
  const bareCpu = median(bare.map((r) => r.cpu));
  const bareRss = median(bare.map((r) => r.rss));
  return [
    {
      name: `start: \`sealpost start\` (bundle, all roles, default configuration) to the first 200 from /healthz, median of ${count}`,
      measured: `${fmt(ms)} ms (CPU ${fmt(cpu)} ms)`,
      baseline: `${fmt(bareMs)} ms (CPU ${fmt(bareCpu)} ms; bare Fastify answering /healthz)`,
      ratio: ms / bareMs,
      target: '< 1 s',
      met: ms < 1000,
    },
    {
      name: `idle RSS: the same \`sealpost start\` 2 s after answering /healthz, median of ${count}`,
      measured: `${fmt(rss)} MiB`,
      baseline: `${fmt(bareRss)} MiB (bare Fastify)`,
      ratio: rss / bareRss,
      target: '< 120 MiB',
      met: rss < 120,
    },
  ];
}
