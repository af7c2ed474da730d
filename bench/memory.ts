/**
 * Memory benchmark: `BENCH_MEMORY_COUNT` (default 24) sends of one message with a `BENCH_MEMORY_MB` (default 8) MB
 * attachment, all at once, into the embedded default with the in-flight bound off, served by this process while the
 * requests come from another. Reports the server's peak RSS growth per accepted megabyte of request body (the
 * high-water mark is reset before the run through /proc/self/clear_refs, so Linux only). The baseline is the bodies'
 * own size: a ratio of 1 holds each accepted message once.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
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

/** Runs the memory benchmark with the in-flight bound off, then with its default (256 MiB). */
export async function memoryBench(count: number, mb: number): Promise<BenchRow[]> {
  return [await memoryRow(count, mb, 0), await memoryRow(count, mb, 268435456)];
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
    const result = await load(url, {
      connections: count,
      seconds: 600,
      amount: count,
      timeout: 300,
      body: payload,
      headers,
    });
    const peak = kb('VmHWM:');
    if ((bound === 0 && result.non2xx > 0) || result.errors > 0)
      throw new Error(`memory benchmark: ${result.non2xx} non-2xx, ${result.errors} errors`);
    const accepted = result.total - result.non2xx;
    const acceptedMb = (accepted * payload.length) / 1024 / 1024;
    const growthMb = (peak - before) / 1024;
    const ratio = growthMb / acceptedMb;
    return {
      name: `memory: ${result.total} concurrent sends with a ${mb} MB attachment (${fmt(payload.length / 1024 / 1024, 1)} MB bodies), ${bound === 0 ? 'in-flight bound off' : `in-flight bound ${fmt(bound / 1024 / 1024)} MiB: ${accepted} accepted, ${result.non2xx} answered 503`}, SQLite durable`,
      measured: `peak RSS +${fmt(growthMb)} MB (from ${fmt(before / 1024)} MB)`,
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
