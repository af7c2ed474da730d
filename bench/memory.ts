/**
 * Memory benchmark: `BENCH_MEMORY_COUNT` (default 24) sends of one message with a `BENCH_MEMORY_MB` (default 8) MB
 * attachment, all at once, into the embedded default with the in-flight bound off, served by this process while the
 * requests come from another. Reports the server's peak RSS growth per accepted megabyte of request body (the
 * high-water mark is reset before the run through /proc/self/clear_refs, so Linux only). The baseline is the bodies'
 * own size: a ratio of 1 holds each accepted message once. Each row runs in a process of its own: a second row in the
 * same process starts from a heap the first one grew, and measured when the garbage collector ran more than what lived.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildApp } from '../src/app/app.ts';
import { embedded, fmt, load, type BenchRow } from './support.ts';

const kb = (field: string): number =>
  Number(
    /\d+/.exec(
      readFileSync('/proc/self/status', 'utf8')
        .split('\n')
        .find((l) => l.startsWith(field)) ?? '0',
    )?.[0] ?? 0,
  );

function body(domain: string, mb: number): string {
  return JSON.stringify({
    data: {
      message: {
        recipients: ['patient@example.org'],
        headers: { subject: 'Your scans', from: `Clinic <noreply@${domain}>` },
        content: { 'text/plain': 'Your scans are attached.' },
        attachments: [
          {
            fileName: 'scans.pdf',
            contentType: 'application/pdf',
            content: randomBytes(mb * 1024 * 1024).toString('base64'),
          },
        ],
      },
    },
  });
}

/** Runs the memory benchmark with the in-flight bound off, then with its default (256 MiB), each in a new process. */
export async function memoryBench(count: number, mb: number): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const bound of [0, 268435456]) {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--expose-gc',
        'bin/run-ts.js',
        fileURLToPath(import.meta.url),
        String(count),
        String(mb),
        String(bound),
      ],
      { maxBuffer: 1024 * 1024 },
    );
    rows.push(JSON.parse(stdout.trim().split('\n').pop()!) as BenchRow);
  }
  return rows;
}

async function memoryRow(count: number, mb: number, bound: number): Promise<BenchRow> {
  const inst = await embedded({ maxInFlightBytes: bound });
  const app = await buildApp(inst.ctx);
  try {
    const url = `${await app.listen({ host: '127.0.0.1', port: 0 })}/v1/email/messages`;
    const payload = body(inst.domain, mb);
    const headers = { authorization: `Bearer ${inst.key}` };
    // One message first, so that code loaded on first use is not counted.
    await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: payload,
    });
    global.gc?.();
    const before = kb('VmRSS:');
    writeFileSync('/proc/self/clear_refs', '5');
    // The JS heap and the memory outside it (buffers, external strings), sampled: RSS alone also counts memory the
    // allocator keeps after it was freed, which moves from run to run.
    const most = { heapUsed: 0, external: 0 };
    const sampler = setInterval(() => {
      const now = process.memoryUsage();
      most.heapUsed = Math.max(most.heapUsed, now.heapUsed);
      most.external = Math.max(most.external, now.external);
    }, 20);
    const result = await load(url, {
      connections: count,
      seconds: 600,
      amount: count,
      timeout: 300,
      body: payload,
      headers,
    });
    const peak = kb('VmHWM:');
    clearInterval(sampler);
    if ((bound === 0 && result.non2xx > 0) || result.errors > 0)
      throw new Error(`memory benchmark: ${result.non2xx} non-2xx, ${result.errors} errors`);
    const accepted = result.total - result.non2xx;
    const acceptedMb = (accepted * payload.length) / 1024 / 1024;
    const growthMb = (peak - before) / 1024;
    const ratio = growthMb / acceptedMb;
    return {
      name: `memory: ${result.total} concurrent sends with a ${mb} MB attachment (${fmt(payload.length / 1024 / 1024, 1)} MB bodies), ${bound === 0 ? 'in-flight bound off' : `in-flight bound ${fmt(bound / 1024 / 1024)} MiB: ${accepted} accepted, ${result.non2xx} answered 503`}, SQLite durable`,
      measured: `peak RSS +${fmt(growthMb)} MB (from ${fmt(before / 1024)} MB); peak JS heap ${fmt(most.heapUsed / 1048576)} MB, outside it ${fmt(most.external / 1048576)} MB`,
      baseline: `${fmt(acceptedMb)} MB of accepted request bodies`,
      ratio,
      target: '≤ 2 MB of peak RSS per accepted MB',
      met: ratio <= 2,
    };
  } finally {
    await app.close();
    await inst.close();
  }
}

// Run as a script: one row, printed as JSON on the last line.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [count, mb, bound] = process.argv.slice(2).map(Number);
  process.stdout.write(`${JSON.stringify(await memoryRow(count!, mb!, bound!))}\n`);
  process.exit(0);
}
