/**
 * Delivery benchmark: messages already accepted are delivered by the worker role through the relay transport to a
 * loopback SMTP sink speaking STARTTLS, beside a same-run baseline: raw nodemailer with a pool of the same size sending
 * the same number of messages to the same sink. Target: at least 50% of the baseline's rate.
 */
import { SMTPServer } from 'smtp-server';
import nodemailer from 'nodemailer';
import selfsigned from 'selfsigned';
import { startRoles } from '../src/app/roles.ts';
import { submitMessages } from '../src/email/submit.ts';
import { normalizeMessage } from '../src/email/message-input.ts';
import { embedded, fmt, type BenchRow } from './support.ts';

const CONCURRENCY = 16;

/** A loopback SMTP sink speaking STARTTLS that counts what it receives. */
export async function startSink(): Promise<{
  port: number;
  received: () => number;
  close: () => Promise<void>;
}> {
  const pems = selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    days: 2,
    algorithm: 'sha256',
  });
  let received = 0;
  const server = new SMTPServer({
    key: pems.private,
    cert: pems.cert,
    authOptional: true,
    logger: false,
    size: 50_000_000,
    onData(stream, _session, callback) {
      stream.on('data', () => undefined);
      stream.on('end', () => {
        received++;
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { port, received: () => received, close: () => new Promise((r) => server.close(() => r())) };
}

const html = `<html><body>${'<p>Your lab results are ready. Sign in to the patient portal to read them.</p>'.repeat(20)}<p><a href="https://portal.example.org/results">Open the portal</a></p></body></html>`;

async function baselineSeconds(port: number, count: number): Promise<number> {
  const transport = nodemailer.createTransport({
    pool: true,
    maxConnections: CONCURRENCY,
    maxMessages: Infinity,
    host: '127.0.0.1',
    port,
    requireTLS: true,
    tls: { rejectUnauthorized: false },
  });
  const start = performance.now();
  await Promise.all(
    Array.from({ length: count }, (_, i) =>
      transport.sendMail({
        from: 'Clinic <noreply@bench.example>',
        to: `patient${i}@example.org`,
        subject: 'Your results',
        text: 'Your lab results are ready.',
        html,
      }),
    ),
  );
  const seconds = (performance.now() - start) / 1000;
  transport.close();
  return seconds;
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('delivery benchmark timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function sealpostSeconds(port: number, count: number): Promise<number> {
  const inst = await embedded({
    transport: 'relay',
    relayUrl: `smtp://127.0.0.1:${port}`,
    tlsVerify: false,
    deliveryConcurrency: CONCURRENCY,
    workerPollMs: 50,
  });
  try {
    const message = normalizeMessage({
      recipients: ['patient@example.org'],
      headers: { subject: 'Your results', from: `Clinic <noreply@${inst.domain}>` },
      content: { 'text/plain': 'Your lab results are ready.', 'text/html': html },
    });
    for (let i = 0; i < count; i += 50) {
      const batch = Array.from({ length: Math.min(50, count - i) }, (_, j) => ({
        ...message,
        to: [{ address: `patient${i + j}@example.org`, name: '' }],
      }));
      await submitMessages(inst.ctx, { customerId: 1, domain: inst.domain }, batch, {
        source: 'api',
        tracking: { openTracking: true, linkTracking: true },
      });
    }
    const start = performance.now();
    const running = await startRoles(inst.ctx, ['worker']);
    const db = inst.ctx.database.db;
    await waitUntil(async () => {
      const row = await db
        .selectFrom('message_recipients')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('status', '=', 'delivered')
        .executeTakeFirstOrThrow();
      return Number(row.n) >= count;
    }, 300_000);
    const seconds = (performance.now() - start) / 1000;
    await running.stop();
    return seconds;
  } finally {
    await inst.close();
  }
}

/** Runs the delivery benchmark with `count` messages per side. */
export async function deliverBench(count: number): Promise<BenchRow[]> {
  const sink = await startSink();
  try {
    await baselineSeconds(sink.port, Math.min(200, count)); // warm-up
    const base = await baselineSeconds(sink.port, count);
    const ours = await sealpostSeconds(sink.port, count);
    const ratio = base / ours;
    return [
      {
        name: `deliver: ${count} accepted messages → loopback STARTTLS sink, ${CONCURRENCY} connections`,
        measured: `${fmt(count / ours)} /s (${fmt(ours, 1)} s)`,
        baseline: `${fmt(count / base)} /s (${fmt(base, 1)} s, raw nodemailer pool)`,
        ratio,
        target: '≥ 0.50 of baseline',
        met: ratio >= 0.5,
      },
    ];
  } finally {
    await sink.close();
  }
}
