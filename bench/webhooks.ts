/**
 * Webhook benchmark: `delivered` events posted per second through the real dispatcher (the `webhooks` work-row queue,
 * signing, the attempt log, SQLite durable) to a loopback receiver in another process, beside same-run baselines: plain
 * POSTs of the same body at the same concurrency to the same receiver, with node:http through a keep-alive agent (the
 * dispatcher's own client, so the ratio is the dispatcher's overhead) and with fetch. Target: at least 1,000 events/s.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { sealContent } from '../src/mail/content.ts';
import { insertMessages, insertRecipients } from '../src/email/messages.repository.ts';
import { appendEvent } from '../src/webhooks/webhooks.outbox.ts';
import { createWorker } from '../src/jobs/worker.ts';
import { createEndpoint } from '../src/webhooks/webhooks.service.ts';
import { webhookQueues } from '../src/webhooks/webhooks.worker.ts';
import { BENCH_BY, embedded, fmt, type BenchRow } from './support.ts';

const CONCURRENCY = 32;
/** Events made ready per measured second: more than the dispatcher can post, so it never runs dry. */
const BACKLOG_PER_SECOND = 4000;
const BATCH = 500;

/** The receiver: a bare node:http server in a child process that answers 200 and counts requests on demand. */
const RECEIVER = `
const http = require('node:http');
let count = 0;
let sample = null;
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    count++;
    if (!sample) sample = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (m) => {
  if (m === 'count') process.send({ count, sample });
  if (m === 'reset') { count = 0; process.send({ count }); }
});
`;

interface Receiver {
  url: string;
  ask(
    m: 'count' | 'reset',
  ): Promise<{ count: number; sample?: { headers: Record<string, string>; body: string } | null }>;
  close(): void;
}

async function startReceiver(): Promise<Receiver> {
  const child: ChildProcess = spawn(process.execPath, ['-e', RECEIVER], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve) =>
    child.once('message', (m) => resolve((m as { port: number }).port)),
  );
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    ask: (m) =>
      new Promise((resolve) => {
        child.once('message', (answer) => resolve(answer as Awaited<ReturnType<Receiver['ask']>>));
        child.send(m);
      }),
    close: () => child.kill(),
  };
}

/** Messages with one recipient each and a `delivered` event each, appended through appendEvent in batches. */
async function makeEvents(
  inst: Awaited<ReturnType<typeof embedded>>,
  customerId: number,
  count: number,
): Promise<void> {
  const { ctx } = inst;
  for (let done = 0; done < count; done += BATCH) {
    const now = Date.now();
    await ctx.database.db.transaction().execute(async (trx) => {
      for (let i = done; i < Math.min(done + BATCH, count); i++) {
        const id = randomUUID();
        const from = { address: `desk@${inst.domain}`, name: 'Clinic' };
        const to = [{ address: `patient${i}@example.org`, name: '' }];
        await insertMessages(trx, [
          {
            id,
            customer_id: customerId,
            domain_id: null,
            header_message_id: `<${id}@${inst.domain}>`,
            from_addr: from.address,
            source: 'api',
            lane: 'transactional',
            allow_non_tls: 0,
            force_secure: 0,
            open_tracking: 0,
            link_tracking: 0,
            custom_headers: JSON.stringify({ 'X-Clinic-Id': '42' }),
            content: sealContent(ctx.sealer, id, {
              subject: 'Appointment confirmation',
              from,
              to,
              cc: [],
              headers: {},
              text: 'Your appointment is confirmed.',
              attachments: [],
            }),
            recipient_count: 1,
            pending_count: 0,
            created_at: now,
          },
        ]);
        const [recipientId] = await insertRecipients(trx, [
          {
            message_id: id,
            customer_id: customerId,
            address: to[0]!.address,
            kind: 'to',
            status: 'delivered',
            delivery_status: 'delivered',
            updated_at: now,
          },
        ]);
        await appendEvent(trx, {
          customer_id: customerId,
          message_id: id,
          recipient_id: recipientId!,
          event: 'delivered',
          data: JSON.stringify({ recipient: to[0]!.address, status: 'delivered', response: '250 2.0.0 OK' }),
          created_at: now,
        });
      }
    });
  }
}

/** POSTs `body` with fetch at `concurrency` for `seconds`; returns requests per second. */
async function fetchBaseline(
  url: string,
  body: string,
  headers: Record<string, string>,
  seconds: number,
): Promise<number> {
  const deadline = performance.now() + seconds * 1000;
  let count = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) {
        const res = await fetch(url, { method: 'POST', headers, body });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`baseline got ${res.status}`);
        count++;
      }
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

/** POSTs `body` with node:http through a keep-alive agent (the dispatcher's client) at `concurrency` for `seconds`; returns requests per second. */
async function httpBaseline(
  url: string,
  body: string,
  headers: Record<string, string>,
  seconds: number,
): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const deadline = performance.now() + seconds * 1000;
  let count = 0;
  const started = performance.now();
  const once = () =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(
        url,
        { method: 'POST', agent, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
        (res) => {
          res.resume();
          res.on('end', () =>
            res.statusCode === 200 ? resolve() : reject(new Error(`baseline got ${res.statusCode}`)),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) {
        await once();
        count++;
      }
    }),
  );
  agent.destroy();
  return count / ((performance.now() - started) / 1000);
}

/** Runs the webhook benchmark for `seconds`. */
export async function webhooksBench(seconds: number): Promise<BenchRow[]> {
  const receiver = await startReceiver();
  const inst = await embedded({
    ...(process.env.BENCH_SQLITE_SYNC === 'NORMAL' ? { sqliteSynchronous: 'NORMAL' as const } : {}),
    webhookAllowPrivateTargets: true,
    webhookConcurrency: CONCURRENCY,
    logLevel: 'silent',
  });
  try {
    const { ctx } = inst;
    const customerId = (await ctx.database.db.selectFrom('customers').select('id').executeTakeFirstOrThrow())
      .id;
    await createEndpoint(
      ctx,
      customerId,
      { target_url: receiver.url, events: ['api_mail_log_delivered'] },
      BENCH_BY,
    );
    const backlog = Math.max(2000, Math.round(seconds * BACKLOG_PER_SECOND));
    await makeEvents(inst, customerId, backlog);

    const worker = createWorker({
      database: ctx.database,
      log: ctx.log,
      queues: webhookQueues(ctx),
      pollMs: ctx.config.workerPollMs,
      leaseMs: ctx.config.jobLeaseMs,
    });
    const started = performance.now();
    worker.start();
    let posted = 0;
    while (performance.now() - started < seconds * 1000 && posted < backlog) {
      await new Promise((r) => setTimeout(r, 50));
      posted = (await receiver.ask('count')).count;
    }
    const elapsed = (performance.now() - started) / 1000;
    await worker.stop(10_000);
    const rate = posted / elapsed;
    const delivered = await ctx.database.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('state', '=', 'delivered')
      .executeTakeFirstOrThrow();
    const { sample, count: total } = await receiver.ask('count');
    if (Number(delivered.n) < total)
      throw new Error(`the receiver got ${total} posts but only ${delivered.n} deliveries are recorded`);

    await receiver.ask('reset');
    const headers = { ...sample!.headers, connection: 'keep-alive' };
    delete (headers as Record<string, string>)['content-length'];
    delete (headers as Record<string, string>)['host'];
    const base = await httpBaseline(receiver.url, sample!.body, headers, seconds);
    const withFetch = await fetchBaseline(receiver.url, sample!.body, headers, seconds);
    return [
      {
        name: `webhooks: delivered events posted to a loopback receiver, concurrency ${CONCURRENCY}, SQLite durable`,
        measured: `${fmt(rate)} events/s (${fmt(posted)} in ${fmt(elapsed, 1)} s)`,
        baseline: `${fmt(base)} /s (node:http keep-alive POSTs of the same body; ${fmt(withFetch)} /s with fetch)`,
        ratio: rate / base,
        target: '≥ 1,000 events/s',
        met: rate >= 1000,
      },
    ];
  } finally {
    await inst.close();
    receiver.close();
  }
}
