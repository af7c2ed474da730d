/**
 * SMTP submission benchmark: messages per second over 16 connections with STARTTLS and AUTH into the embedded default
 * (each message committed before its 250), beside a same-run baseline: a bare smtp-server sink with the same TLS and
 * AUTH that keeps nothing. The clients run in processes of their own (bench/smtp-load.ts), 4 connections each. Target: at least 500 messages/s.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import selfsigned from 'selfsigned';
import { SMTPServer } from 'smtp-server';
import { startSmtp } from '../src/smtp/smtp.server.ts';
import { embedded, fmt, type BenchRow } from './support.ts';

const CONNECTIONS = 16;

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Client processes the connections are spread over, so the generator is not the bottleneck on a small machine. */
const CLIENT_PROCESSES = 4;

/** Sends `count` messages over CONNECTIONS connections from CLIENT_PROCESSES separate processes; resolves to messages per second. */
async function blast(port: number, user: string, pass: string, from: string, count: number): Promise<number> {
  const one = (n: number) => {
    const spec = JSON.stringify({
      port,
      user,
      pass,
      from,
      count: n,
      connections: CONNECTIONS / CLIENT_PROCESSES,
    });
    const args = [path.join(ROOT, 'bin/run-ts.js'), path.join(ROOT, 'bench/smtp-load.ts'), spec];
    return new Promise<{ startedAt: number; endedAt: number }>((resolve, reject) =>
      execFile(process.execPath, args, { cwd: ROOT }, (err, stdout) =>
        err ? reject(err) : resolve(JSON.parse(stdout)),
      ),
    );
  };
  const runs = await Promise.all(
    Array.from({ length: CLIENT_PROCESSES }, () => one(count / CLIENT_PROCESSES)),
  );
  // From the first client's first message to the last client's last: process start-up is not counted.
  const span = Math.max(...runs.map((r) => r.endedAt)) - Math.min(...runs.map((r) => r.startedAt));
  return count / (span / 1000);
}

/** Runs the SMTP benchmark with `count` messages per side. */
export async function smtpBench(count: number): Promise<BenchRow[]> {
  const pems = selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    days: 2,
    algorithm: 'sha256',
  });
  const pair = { key: pems.private, cert: pems.cert };

  const sink = new SMTPServer({
    ...pair,
    logger: false,
    authMethods: ['PLAIN', 'LOGIN'],
    onAuth: (_auth, _session, cb) => cb(null, { user: 'bench' }),
    onData(stream, _session, cb) {
      stream.on('data', () => undefined);
      stream.on('end', () => cb());
    },
  });
  await new Promise<void>((r) => sink.listen(0, '127.0.0.1', () => r()));
  const sinkPort = (sink.server.address() as { port: number }).port;

  const inst = await embedded({ smtpHost: '127.0.0.1', smtpRateLimitPerMinute: 0 });
  const smtp = await startSmtp(inst.ctx, [{ name: 'submission', port: 0, secure: false }], pair);
  try {
    const from = `Clinic <noreply@${inst.domain}>`;
    await blast(sinkPort, 'apikey', inst.key, from, 200); // warm-up
    await blast(smtp.ports.submission!, 'apikey', inst.key, from, 200);
    const base = await blast(sinkPort, 'apikey', inst.key, from, count);
    const ours = await blast(smtp.ports.submission!, 'apikey', inst.key, from, count);
    const stored = await inst.ctx.database.db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    if (Number(stored.n) !== count + 200)
      throw new Error(`SMTP benchmark stored ${stored.n} messages, expected ${count + 200}`);
    return [
      {
        name: `smtp: ${count} messages over ${CONNECTIONS} connections, STARTTLS + AUTH, SQLite durable`,
        measured: `${fmt(ours)} /s`,
        baseline: `${fmt(base)} /s (bare smtp-server sink, same TLS and AUTH)`,
        ratio: ours / base,
        target: '≥ 500 /s',
        met: ours >= 500,
      },
    ];
  } finally {
    await smtp.stop();
    await new Promise<void>((r) => sink.close(() => r()));
    await inst.close();
  }
}
