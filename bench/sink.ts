/**
 * The loopback STARTTLS sink the delivery benchmarks deliver into (bench/sink-process.ts, in a process of its own), the
 * lean SMTP clients that give their baseline (bench/smtp-load.ts), and the small process helpers they share.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const RUN_TS = path.join(ROOT, 'bin/run-ts.js');
/** Connections of the lean SMTP clients. */
export const LEAN_CONNECTIONS = 16;

/** The sink as benchmark labels name it: on loopback, or as far away as `BENCH_SINK_RTT_MS` puts it. */
export const sinkWhere = (): string =>
  Number(process.env.BENCH_SINK_RTT_MS ?? 0) > 0
    ? `a STARTTLS sink ${process.env.BENCH_SINK_RTT_MS} ms away (loopback, delayed)`
    : 'a loopback STARTTLS sink';

/** What the sink reported last: messages received, the times (ms) of the first and the latest, its CPU time (ms). */
export interface SinkState {
  received: number;
  firstAt: number;
  lastAt: number;
  cpuMs: number;
}

/** The sink process. */
export interface Sink {
  port: number;
  state(): SinkState;
  /** Sets the sink's count and times back to zero; resolves once it has reported so. */
  reset(): Promise<void>;
  /** Messages per second from the first received message to the latest. */
  rate(): number;
  stop(): void;
}

/** Starts the sink process and waits for its port. */
export async function startSink(): Promise<Sink> {
  const child: ChildProcess = spawn(process.execPath, [RUN_TS, path.join(ROOT, 'bench/sink-process.ts')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let state: SinkState = { received: 0, firstAt: 0, lastAt: 0, cpuMs: 0 };
  let onReport: (() => void) | undefined;
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the sink exited with code ${code}`)));
    lines.on('line', (line) => {
      const msg = JSON.parse(line) as { port?: number } & Partial<SinkState>;
      if (msg.port !== undefined) resolve(msg.port);
      else {
        state = msg as SinkState;
        onReport?.();
      }
    });
  });
  return {
    port,
    state: () => state,
    reset: () =>
      new Promise<void>((resolve) => {
        onReport = () => {
          if (state.received !== 0) return;
          onReport = undefined;
          resolve();
        };
        child.stdin!.write('reset\n');
      }),
    rate: () => state.received / ((state.lastAt - state.firstAt) / 1000),
    stop: () => {
      child.kill('SIGTERM');
    },
  };
}

/** Runs a program to its end; resolves with its standard output. */
export function runProcess(
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd = ROOT,
): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(file, args, { cwd, env, maxBuffer: 10_000_000 }, (err, stdout, stderr) =>
      err
        ? reject(new Error(`${path.basename(args[1] ?? file)} failed: ${stderr || err.message}`))
        : resolve(stdout),
    ),
  );
}

/** Waits until `check` holds, polling every 50 ms; throws after `timeoutMs`. */
export async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Options of the lean clients: STARTTLS unless `starttls` is false, and how many connections. */
export interface LeanOptions {
  starttls?: boolean;
  connections?: number;
}

/**
 * Lean pipelined SMTP clients (bench/smtp-load.ts, no AUTH) sending `count` messages of about 2 KB to `port`: messages
 * per second of their sending.
 */
export async function leanClients(port: number, count: number, opts: LeanOptions = {}): Promise<number> {
  return (await leanClientsMeasured(port, count, opts)).perSecond;
}

/** The same, with the CPU time (ms) the clients' process spent sending. */
export async function leanClientsMeasured(
  port: number,
  count: number,
  opts: LeanOptions = {},
): Promise<{ perSecond: number; cpuMs: number }> {
  const spec = JSON.stringify({
    port,
    user: '',
    pass: '',
    from: 'Clinic <noreply@bench.example>',
    count,
    connections: opts.connections ?? LEAN_CONNECTIONS,
    starttls: opts.starttls ?? true,
  });
  return JSON.parse(
    await runProcess(process.execPath, [RUN_TS, path.join(ROOT, 'bench/smtp-load.ts'), spec], process.env),
  ) as { perSecond: number; cpuMs: number };
}
