/**
 * Accept benchmark: POST /messages (one recipient, about 2 KB) at concurrency 50 into the embedded default (SQLite,
 * synchronous=FULL, so every 200 is durable), beside a same-run baseline: a bare Fastify server answering the same
 * request with a constant. Target: at least 3,000 accepted/s with p99 at most 50 ms.
 */
import Fastify from 'fastify';
import { buildApp } from '../src/app/app.ts';
import { embedded, fmt, load, type BenchRow } from './support.ts';

const CONNECTIONS = 50;

function messageBody(domain: string): string {
  const paragraph =
    '<p>Your appointment is confirmed. Please arrive ten minutes early and bring your insurance card.</p>';
  return JSON.stringify({
    data: {
      message: {
        recipients: ['Patient Example <patient@example.org>'],
        headers: {
          subject: 'Appointment confirmation',
          from: `Clinic <noreply@${domain}>`,
          'x-clinic-id': '42',
        },
        content: {
          'text/plain': 'Your appointment is confirmed.',
          'text/html': `<html><body>${paragraph.repeat(18)}</body></html>`,
        },
      },
    },
  });
}

/** Runs the accept benchmark for `seconds` per side. */
export async function acceptBench(seconds: number): Promise<BenchRow[]> {
  const baseline = Fastify();
  baseline.post('/v1/email/messages', async () => ({
    sourceTrackingId: '00000000-0000-4000-8000-000000000000',
    data: 'Service OK',
  }));
  const baseUrl = await baseline.listen({ host: '127.0.0.1', port: 0 });

  const inst = await embedded(
    process.env.BENCH_SQLITE_SYNC === 'NORMAL' ? { sqliteSynchronous: 'NORMAL' } : {},
  );
  const app = await buildApp(inst.ctx);
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const body = messageBody(inst.domain);
  try {
    const headers = { authorization: `Bearer ${inst.key}` };
    await load(`${url}/v1/email/messages`, { connections: CONNECTIONS, seconds: 2, body, headers }); // warm-up
    await load(`${baseUrl}/v1/email/messages`, { connections: CONNECTIONS, seconds: 2, body });
    const base = await load(`${baseUrl}/v1/email/messages`, { connections: CONNECTIONS, seconds, body });
    const ours = await load(`${url}/v1/email/messages`, { connections: CONNECTIONS, seconds, body, headers });
    const stored = await inst.ctx.database.db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    if (ours.non2xx > 0 || ours.errors > 0)
      throw new Error(`accept benchmark saw ${ours.non2xx} non-2xx responses and ${ours.errors} errors`);
    if (Number(stored.n) < ours.total)
      throw new Error(`only ${stored.n} of ${ours.total} accepted messages are stored`);
    return [
      {
        name: 'accept: POST /messages, 1 recipient, ~2 KB, concurrency 50, SQLite durable',
        measured: `${fmt(ours.requestsPerSec)} /s, p50 ${fmt(ours.p50Ms)} ms, p99 ${fmt(ours.p99Ms)} ms`,
        baseline: `${fmt(base.requestsPerSec)} /s, p99 ${fmt(base.p99Ms)} ms (Fastify constant)`,
        ratio: ours.requestsPerSec / base.requestsPerSec,
        target: '≥ 3,000 /s and p99 ≤ 50 ms',
        met: ours.requestsPerSec >= 3000 && ours.p99Ms <= 50,
      },
    ];
  } finally {
    await app.close();
    await baseline.close();
    await inst.close();
  }
}
