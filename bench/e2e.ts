/**
 * End-to-end benchmark: the whole service as a user starts it (`sealpost start`, all roles, default logging and limits
 * but a high rate limit, the worker delivering through the relay transport) is fed messages over HTTP while it delivers
 * them to a loopback STARTTLS sink in another process. It reports accepted/s and delivered/s (from the first message
 * the sink receives to the last), beside a same-run baseline: lean pipelined SMTP clients (bench/smtp-load.ts, 16
 * connections) sending the same number of messages straight into the same sink. Target: delivered at 0.15 of the lean
 * clients' rate or better.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { fmt, type BenchRow } from './support.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUN_TS = path.join(ROOT, 'bin/run-ts.js');
const CONNECTIONS = 16;
const HTTP_CONNECTIONS = 32;

interface SinkState {
  received: number;
  firstAt: number;
  lastAt: number;
}

/** The sink process: its port, and its latest report. */
async function startSink(): Promise<{ port: number; state: () => SinkState; child: ChildProcess }> {
  const child = spawn(process.execPath, [RUN_TS, path.join(ROOT, 'bench/sink-process.ts')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let state: SinkState = { received: 0, firstAt: 0, lastAt: 0 };
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve) => {
    lines.on('line', (line) => {
      const msg = JSON.parse(line) as { port?: number } & Partial<SinkState>;
      if (msg.port !== undefined) resolve(msg.port);
      else state = msg as SinkState;
    });
  });
  return { port, state: () => state, child };
}

function run(file: string, args: string[], env: NodeJS.ProcessEnv, cwd = ROOT): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(file, args, { cwd, env, maxBuffer: 10_000_000 }, (err, stdout, stderr) =>
      err
        ? reject(new Error(`${path.basename(args[1] ?? file)} failed: ${stderr || err.message}`))
        : resolve(stdout),
    ),
  );
}

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts `sealpost start` in a fresh data directory relaying to the sink; resolves with its URL, a key and a stop. */
async function startService(
  sinkPort: number,
): Promise<{ url: string; key: string; from: string; stop: () => Promise<void> }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'sealpost-e2e-'));
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const env = {
    ...process.env,
    SEALPOST_DATA_DIR: path.join(dir, 'data'),
    SEALPOST_HTTP_PORT: String(port),
    SEALPOST_SMTP_SUBMISSION_PORT: '0',
    SEALPOST_SMTP_TLS_PORT: '0',
    SEALPOST_SMTP_PORT_25: '0',
    SEALPOST_TRANSPORT: 'relay',
    SEALPOST_RELAY_URL: `smtp://127.0.0.1:${sinkPort}`,
    SEALPOST_TLS_VERIFY: 'false',
    SEALPOST_RATE_LIMIT_PER_MINUTE: '10000000',
  };
  const bin = path.join(ROOT, 'bin/sealpost.js');
  const cli = async (...args: string[]) =>
    JSON.parse(await run(process.execPath, [bin, ...args, '--json'], env, dir));
  await cli('account', 'create', '--username', 'bench');
  await cli('domain', 'add', '--account', 'bench', '--domain', 'bench.example', '--verified');
  const { key } = (await cli(
    'key',
    'create',
    '--account',
    'bench',
    '--scopes',
    'email',
    '--description',
    'e2e',
  )) as { key: string };
  const child = spawn(process.execPath, [bin, 'start'], {
    cwd: dir,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  while (
    !(await fetch(`${url}/healthz`)
      .then((r) => r.ok)
      .catch(() => false))
  ) {
    if (Date.now() > deadline) throw new Error('sealpost start did not answer /healthz within 30 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  const exited = new Promise((r) => child.once('exit', r));
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  return { url, key, from: 'Clinic <noreply@bench.example>', stop };
}

/** Lean SMTP clients into the sink: messages per second. */
async function leanClients(port: number, count: number): Promise<number> {
  const spec = JSON.stringify({
    port,
    user: '',
    pass: '',
    from: 'Clinic <noreply@bench.example>',
    count,
    connections: CONNECTIONS,
  });
  const out = JSON.parse(
    await run(process.execPath, [RUN_TS, path.join(ROOT, 'bench/smtp-load.ts'), spec], process.env),
  ) as {
    perSecond: number;
  };
  return out.perSecond;
}

/** Runs the end-to-end benchmark with `count` messages. */
export async function endToEndBench(count: number): Promise<BenchRow[]> {
  const sink = await startSink();
  const service = await startService(sink.port);
  try {
    const spec = JSON.stringify({
      url: service.url,
      key: service.key,
      from: service.from,
      count,
      connections: HTTP_CONNECTIONS,
    });
    const fed = JSON.parse(
      await run(process.execPath, [RUN_TS, path.join(ROOT, 'bench/send-client.ts'), spec], process.env),
    ) as {
      perSecond: number;
      failures: string[];
    };
    if (fed.failures.length) throw new Error(`end-to-end: requests failed: ${fed.failures.join('; ')}`);
    await until(() => sink.state().received >= count, 600_000, `${count} deliveries`);
    const { firstAt, lastAt } = sink.state();
    const delivered = count / ((lastAt - firstAt) / 1000);
    await service.stop();
    const before = sink.state().received;
    const lean = await leanClients(sink.port, count);
    await until(() => sink.state().received >= before + count, 60_000, 'the lean clients');
    return [
      {
        name: `e2e: ${count} messages of ~2 KB over HTTP into \`sealpost start\` (default logging), accepted`,
        measured: `${fmt(fed.perSecond)} /s`,
        baseline: `${fmt(lean)} /s (lean pipelined SMTP clients into the same sink)`,
        ratio: fed.perSecond / lean,
        target: 'recorded',
        met: true,
      },
      {
        name: 'e2e: the same messages delivered over STARTTLS to a loopback sink',
        measured: `${fmt(delivered)} /s`,
        baseline: `${fmt(lean)} /s (lean pipelined SMTP clients into the same sink)`,
        ratio: delivered / lean,
        target: '≥ 0.15 of the lean clients',
        met: delivered / lean >= 0.15,
      },
    ];
  } finally {
    await service.stop().catch(() => undefined);
    sink.child.kill('SIGTERM');
  }
}
