/**
 * Accept benchmark: POST /messages (one recipient, about 2 KB) at concurrency 50 into the embedded default (SQLite,
 * synchronous=FULL, so every 200 is durable), beside a same-run baseline: a bare Fastify server answering the same
 * request with a constant. Target: at least 3,000 accepted/s with p99 at most 50 ms. In the same run: the same load on
 * PostgreSQL (the test server, SEALPOST_TEST_PG_URL) against SQLite, target at least 0.7 of SQLite; and the default
 * `info` log against logging off, target: the access log costs under 5% of the server's CPU for accepting.
 */
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import pino from 'pino';
import { loadConfig } from '../src/config/load.ts';
import { loggerOptions } from '../src/runtime.ts';
import { batchedLogStream } from '../src/log-stream.ts';
import { busyShare, profiled, type CpuProfile, type Frame } from './cpu-share.ts';
import { buildApp } from '../src/app/app.ts';
import {
  BENCH_PG_URL,
  embedded,
  fmt,
  load,
  onPostgres,
  postgresCpuMs,
  type BenchInstance,
  type BenchRow,
  type LoadResult,
} from './support.ts';

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

/**
 * An accept measurement, with the server's CPU time per accepted message (less sensitive to a busy machine) and, on
 * PostgreSQL, the database server's.
 */
type Accepted = LoadResult & { cpuUsPerMessage: number; served: number; dbCpuUsPerMessage?: number };

/** One accept measurement: a server on the instance, loaded for `seconds`, checked that every 200 is stored. */
async function measureAccept(inst: BenchInstance, seconds: number): Promise<Accepted> {
  const app = await buildApp(inst.ctx);
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const body = messageBody(inst.domain);
  try {
    const headers = { authorization: `Bearer ${inst.key}` };
    const warm = await load(`${url}/v1/email/messages`, {
      connections: CONNECTIONS,
      seconds: 2,
      body,
      headers,
    });
    const before = await countMessages(inst);
    const onPg = inst.ctx.database.dialect === 'postgres';
    const dbCpu = onPg ? postgresCpuMs() : undefined;
    const cpu = process.cpuUsage();
    const ours = await load(`${url}/v1/email/messages`, { connections: CONNECTIONS, seconds, body, headers });
    const used = process.cpuUsage(cpu);
    const dbNow = dbCpu === undefined ? undefined : postgresCpuMs();
    const dbUsedMs = dbCpu === undefined || dbNow === undefined ? undefined : dbNow - dbCpu;
    const stored = (await countMessages(inst)) - before;
    if (ours.non2xx > 0 || ours.errors > 0)
      throw new Error(`accept benchmark saw ${ours.non2xx} non-2xx responses and ${ours.errors} errors`);
    if (stored < ours.total) throw new Error(`only ${stored} of ${ours.total} accepted messages are stored`);
    return {
      ...ours,
      cpuUsPerMessage: (used.user + used.system) / ours.total,
      ...(dbUsedMs === undefined ? {} : { dbCpuUsPerMessage: (dbUsedMs * 1000) / ours.total }),
      served: warm.total + ours.total,
    };
  } finally {
    await app.close();
  }
}

async function countMessages(inst: BenchInstance): Promise<number> {
  const row = await inst.ctx.database.db
    .selectFrom('messages')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Runs of `seconds` each taken together: the rate over all, mean p50, worst p99, CPU per message over all. */
function combined(list: Accepted[], seconds: number): Accepted {
  const total = list.reduce((a, r) => a + r.total, 0);
  return {
    ...list[0]!,
    total,
    served: list.reduce((a, r) => a + r.served, 0),
    requestsPerSec: total / (seconds * list.length),
    p50Ms: list.reduce((a, r) => a + r.p50Ms, 0) / list.length,
    p99Ms: Math.max(...list.map((r) => r.p99Ms)),
    cpuUsPerMessage: list.reduce((a, r) => a + r.cpuUsPerMessage * r.total, 0) / total,
    ...(list.every((r) => r.dbCpuUsPerMessage !== undefined)
      ? { dbCpuUsPerMessage: list.reduce((a, r) => a + r.dbCpuUsPerMessage! * r.total, 0) / total }
      : {}),
  };
}

const rate = (r: Accepted) =>
  `${fmt(r.requestsPerSec)} /s, p50 ${fmt(r.p50Ms)} ms, p99 ${fmt(r.p99Ms)} ms, ` +
  `${fmt(r.cpuUsPerMessage)} µs CPU/message` +
  (r.dbCpuUsPerMessage === undefined ? '' : ` (+ PostgreSQL's processes ${fmt(r.dbCpuUsPerMessage)} µs)`);

/** Frames of the access log: its line (serializers and formatting included) and handing it to the log's file. */
const inAccessLog = (frame: Frame) =>
  frame.url.endsWith('/src/http/access-log.ts') ||
  frame.url.endsWith('/src/log-stream.ts') ||
  frame.url.includes('/node_modules/sonic-boom/');

/** How long the server keeps one side (log on, log off) before switching to the other. */
const PHASE_MS = 500;
/**
 * The start of each phase that is not counted: the requests still in flight began under the other side, and the log's
 * stream hands its last lines of an `info` phase to the file in the next one.
 */
const SETTLE_MS = 50;

const other = (side: 'info' | 'off') => (side === 'info' ? 'off' : 'info');

/** CPU time and answered requests of one side of the alternating comparison. */
interface Side {
  cpuUs: number;
  answered: number;
  phases: number;
}

/**
 * One server under one steady load for `seconds`, its log switched between `info` and off every PHASE_MS (the level
 * of the app's logger, which each request's logger takes when the request arrives): the CPU time and the requests
 * answered in each phase, from SETTLE_MS after its switch, go to that phase's side. Phases are counted from the moment
 * the load is answered until one phase before the load ends. Both sides share the process, its warm code and
 * database, and whatever the machine does meanwhile, half a second at a time; the noise between separate runs is
 * larger than the 5% looked for.
 */
async function alternatingLogCost(
  inst: BenchInstance,
  seconds: number,
): Promise<Record<'info' | 'off', Side> & { logged: number }> {
  const app = await buildApp(inst.ctx);
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  let answered = 0;
  let logged = 0;
  // Each request's logger takes the app logger's level as the request arrives, in the same turn as this listener.
  app.server.on('request', (_req, res) => {
    const on = app.log.level === 'info';
    res.once('finish', () => {
      answered++;
      if (on) logged++;
    });
  });
  const body = messageBody(inst.domain);
  const headers = { authorization: `Bearer ${inst.key}` };
  const sides = { info: { cpuUs: 0, answered: 0, phases: 0 }, off: { cpuUs: 0, answered: 0, phases: 0 } };
  const phase = async (side: 'info' | 'off') => {
    app.log.level = side === 'info' ? 'info' : 'silent';
    await sleep(SETTLE_MS);
    const cpu = process.cpuUsage();
    const count = answered;
    await sleep(PHASE_MS - SETTLE_MS);
    const used = process.cpuUsage(cpu);
    sides[side].cpuUs += used.user + used.system;
    sides[side].answered += answered - count;
    sides[side].phases++;
  };
  try {
    // Warmed up with the log on, so both paths are compiled.
    await load(`${url}/v1/email/messages`, { connections: CONNECTIONS, seconds: 2, body, headers });
    app.log.level = 'silent';
    const before = answered;
    const loaded = load(`${url}/v1/email/messages`, { connections: CONNECTIONS, seconds, body, headers });
    let done = false;
    void loaded.finally(() => (done = true)).catch(() => undefined);
    while (!done && answered - before < CONNECTIONS) await sleep(10);
    const until = Date.now() + seconds * 1000 - 2 * PHASE_MS;
    for (let side: 'info' | 'off' = 'off'; !done && Date.now() + PHASE_MS <= until; side = other(side))
      await phase(side);
    const result = await loaded;
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`log comparison saw ${result.non2xx} non-2xx responses and ${result.errors} errors`);
    return { ...sides, logged };
  } finally {
    await app.close();
  }
}

/**
 * Accept with the default `info` log against logging off, on SQLite: the logger is the one `sealpost start` builds,
 * writing JSON lines to a file (as to a journal or a pipe) the way it writes them to its standard output. Two
 * measurements, each against the 5% target: the server's CPU time per answered request with the log on and off in
 * alternating half seconds of one run (alternatingLogCost), and a CPU profile of the server while it accepts with the
 * log on, in which the access log's share of the event loop's busy samples is its cost beside the rest of accepting,
 * both measured in the same samples (without the file writes on the thread pool and without garbage collection).
 */
async function loggingCost(seconds: number): Promise<BenchRow[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'sealpost-bench-log-'));
  const file = path.join(dir, 'sealpost.log');
  const destination = batchedLogStream(openSync(file, 'a'));
  const logged = pino(loggerOptions(loadConfig({}, { logLevel: 'info' })), destination);
  try {
    let sides: Record<'info' | 'off', Side> & { logged: number };
    const alternating = await embedded({}, logged);
    try {
      sides = await alternatingLogCost(alternating, 2 * seconds);
    } finally {
      await alternating.close();
    }
    const inst = await embedded({}, logged);
    let sampled: { result: Accepted; profile: CpuProfile };
    try {
      sampled = await profiled(() => measureAccept(inst, seconds));
    } finally {
      await inst.close();
    }
    await destination.close();
    const lines = readFileSync(file, 'utf8').split('\n').length - 1;
    const perMessage = (side: Side) => side.cpuUs / side.answered;
    const describe = (side: Side) =>
      `${fmt(perMessage(side))} µs CPU/message ` +
      `(${fmt(side.answered)} requests in ${side.phases} phases, ${PHASE_MS - SETTLE_MS} ms counted of each)`;
    const { share, samples } = busyShare(sampled.profile, inAccessLog);
    const cost = share / (1 - share);
    const ratio = perMessage(sides.info) / perMessage(sides.off);
    return [
      {
        name:
          'accept with the default `info` log (the logger of `sealpost start`, to a file) against logging off, API ' +
          'alone, SQLite durable; CPU of the server per answered request, the log switched on and off every ' +
          `${PHASE_MS} ms of one ${2 * seconds} s run`,
        measured:
          `${describe(sides.info)}; ` +
          `${fmt(lines / (sides.logged + sampled.result.served), 2)} log lines per request with the log on`,
        baseline: `${describe(sides.off)}, logging off`,
        ratio,
        target: 'log costs < 5% (CPU ratio ≤ 1.05)',
        met: ratio <= 1.05,
      },
      {
        name: 'accept with the default `info` log: the event loop time of the access log (its line, handing it to the file) in a CPU profile of the server accepting, against the rest of the event loop in the same samples (file writes on the thread pool and garbage collection not counted)',
        measured: `${fmt(100 * share, 1)}% of the server's busy samples (${fmt(samples)} samples, ${fmt(sampled.result.requestsPerSec)} /s)`,
        baseline: `${fmt(100 * (1 - share), 1)}%: everything else the server did to accept`,
        ratio: cost,
        target: 'log costs < 5% of accept (ratio < 0.05)',
        met: cost < 0.05,
      },
    ];
  } finally {
    await destination.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Runs the accept benchmark for `seconds` per side: the API alone (logging off, no rate limit) on SQLite against a
 * Fastify constant, and on PostgreSQL (BENCH_PG_URL's server, when it answers) against SQLite in the same run.
 */
export async function acceptBench(seconds: number): Promise<BenchRow[]> {
  const baseline = Fastify();
  baseline.post('/v1/email/messages', async () => ({
    sourceTrackingId: '00000000-0000-4000-8000-000000000000',
    data: 'Service OK',
  }));
  const baseUrl = await baseline.listen({ host: '127.0.0.1', port: 0 });
  const body = messageBody('bench.example');
  let base: LoadResult;
  try {
    await load(`${baseUrl}/v1/email/messages`, { connections: CONNECTIONS, seconds: 2, body });
    base = await load(`${baseUrl}/v1/email/messages`, { connections: CONNECTIONS, seconds, body });
  } finally {
    await baseline.close();
  }
  // SQLite and PostgreSQL are measured in alternating runs of half the time each, in mirrored order (SQLite,
  // PostgreSQL, PostgreSQL, SQLite), so a change in the machine's load during the run falls on both.
  const sqliteInst = await embedded(
    process.env.BENCH_SQLITE_SYNC === 'NORMAL' ? { sqliteSynchronous: 'NORMAL' } : {},
  );
  const pgInst = await onPostgres();
  const runs = { lite: [] as Accepted[], pg: [] as Accepted[] };
  try {
    for (const side of ['lite', 'pg', 'pg', 'lite'] as const)
      if (side === 'lite') runs.lite.push(await measureAccept(sqliteInst, seconds / 2));
      else if (pgInst) runs.pg.push(await measureAccept(pgInst, seconds / 2));
  } finally {
    await sqliteInst.close();
    await pgInst?.close();
  }
  const lite = combined(runs.lite, seconds / 2);
  const rows: BenchRow[] = [
    {
      name: 'accept: POST /messages, 1 recipient, ~2 KB, concurrency 50, API alone, logging off, no rate limit, SQLite durable',
      measured: rate(lite),
      baseline: `${fmt(base.requestsPerSec)} /s, p99 ${fmt(base.p99Ms)} ms (Fastify constant)`,
      ratio: lite.requestsPerSec / base.requestsPerSec,
      target: '≥ 3,000 /s and p99 ≤ 50 ms',
      met: lite.requestsPerSec >= 3000 && lite.p99Ms <= 50,
    },
  ];
  if (pgInst) {
    const onPg = combined(runs.pg, seconds / 2);
    rows.push({
      name: 'accept on PostgreSQL (a server on the same machine, TCP): the same load, API alone, logging off',
      measured: rate(onPg),
      baseline: `${rate(lite)} (SQLite durable, above, in alternating runs)`,
      ratio: onPg.requestsPerSec / lite.requestsPerSec,
      target: '≥ 0.7 of SQLite',
      met: onPg.requestsPerSec >= 0.7 * lite.requestsPerSec,
    });
  } else process.stdout.write(`  accept on PostgreSQL skipped: ${BENCH_PG_URL} does not answer\n`);
  rows.push(...(await loggingCost(seconds)));
  return rows;
}
