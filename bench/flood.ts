/**
 * Flood benchmark: one account's key floods `POST /v1/email/messages` far past its rate limit (so nearly every answer is
 * a 429) at 50 connections, while another account sends at a steady rate. The other account's p99 during the flood is
 * compared with its p99 on the same server with no flood, measured in the same run. Logging is on at the default
 * `info` level, written to a file as `sealpost start` writes it. Target: the other account's p99 within 2× of quiet.
 */
import { mkdtempSync, openSync, rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { loadConfig } from '../src/config/load.ts';
import { loggerOptions } from '../src/runtime.ts';
import { batchedLogStream } from '../src/log-stream.ts';
import { buildApp } from '../src/app/app.ts';
import { createAccount } from '../src/accounts/accounts.service.ts';
import { addDomain } from '../src/accounts/domains.service.ts';
import { createKey } from '../src/accounts/keys.service.ts';
import {
  BENCH_BY,
  embedded,
  fmt,
  load,
  type BenchInstance,
  type BenchRow,
  type LoadResult,
} from './support.ts';

const LIMIT_PER_MINUTE = 600;
const VICTIM_RATE = 20;
const FLOOD_CONNECTIONS = 50;

/** The sizes of the flooding requests' bodies, one measurement each: `BENCH_FLOOD_BODY_KB` (default `2,1000`). */
const FLOOD_BODY_KB = (process.env.BENCH_FLOOD_BODY_KB ?? '2,1000').split(',').map(Number);

function messageBody(domain: string, kb = 2): string {
  return JSON.stringify({
    data: {
      message: {
        recipients: ['patient@example.org'],
        headers: { subject: 'Appointment confirmation', from: `Clinic <noreply@${domain}>` },
        content: {
          'text/plain': 'Your appointment is confirmed.',
          'text/html': `<p>${'x'.repeat(Math.max(0, kb * 1024 - 250))}</p>`,
        },
      },
    },
  });
}

/** A second account with its own verified domain and key: the one that is not flooding. */
async function otherAccount(inst: BenchInstance): Promise<{ key: string; domain: string }> {
  const db = inst.ctx.database.db;
  const account = await createAccount(db, 'quiet');
  await addDomain(db, inst.ctx.sealer, account.customer_id, 'quiet.example', BENCH_BY, { verified: true });
  const k = await createKey(db, account.customer_id, {
    by: BENCH_BY,
    scopes: 'email',
    domain: 'quiet.example',
  });
  return { key: k.key, domain: 'quiet.example' };
}

interface FloodSides {
  quiet: LoadResult;
  flooded: LoadResult;
  flood: LoadResult;
}

/** Spends the flooding key's budget for the minute with small sends, so that the flood is refused from its start. */
async function spendBudget(url: string, inst: BenchInstance): Promise<void> {
  const send = () =>
    fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${inst.key}`, 'content-type': 'application/json' },
      body: messageBody(inst.domain),
    }).then((r) => r.status);
  for (let i = 0; i < LIMIT_PER_MINUTE; i += 20) await Promise.all(Array.from({ length: 20 }, send));
  if ((await send()) !== 429) throw new Error('the flooding key still has budget');
}

async function measure(inst: BenchInstance, seconds: number, floodKb: number): Promise<FloodSides> {
  const app = await buildApp(inst.ctx);
  const url = `${await app.listen({ host: '127.0.0.1', port: 0 })}/v1/email/messages`;
  const other = await otherAccount(inst);
  const steady = () =>
    load(url, {
      connections: 4,
      seconds,
      rate: VICTIM_RATE,
      body: messageBody(other.domain),
      headers: { authorization: `Bearer ${other.key}` },
    });
  try {
    await load(url, {
      ...{ connections: 4, seconds: 2, rate: VICTIM_RATE },
      body: messageBody(other.domain),
      headers: { authorization: `Bearer ${other.key}` },
    });
    const quiet = await steady();
    await spendBudget(url, inst);
    const flooding = load(url, {
      connections: FLOOD_CONNECTIONS,
      seconds: seconds + 4,
      body: messageBody(inst.domain, floodKb),
      headers: { authorization: `Bearer ${inst.key}` },
    });
    // The flooding key spends its minute's budget in the first second or two; measure once it is refused.
    await sleep(2000);
    const flooded = await steady();
    const flood = await flooding;
    if (quiet.non2xx + flooded.non2xx > 0)
      throw new Error('the quiet account was refused during the flood benchmark');
    return { quiet, flooded, flood };
  } finally {
    await app.close();
  }
}

/** Runs the flood benchmark on SQLite with the default log level, once per flood body size. */
export async function floodBench(seconds: number): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const kb of FLOOD_BODY_KB) rows.push(await floodRow(seconds, kb));
  return rows;
}

async function floodRow(seconds: number, floodKb: number): Promise<BenchRow> {
  const dir = mkdtempSync(path.join(tmpdir(), 'sealpost-bench-flood-'));
  const destination = batchedLogStream(openSync(path.join(dir, 'sealpost.log'), 'a'));
  const logged = pino(loggerOptions(loadConfig({}, { logLevel: 'info' })), destination);
  const inst = await embedded({ rateLimitPerMinute: LIMIT_PER_MINUTE, logLevel: 'info' }, logged);
  try {
    const { quiet, flooded, flood } = await measure(inst, seconds, floodKb);
    const ratio = flooded.p99Ms / quiet.p99Ms;
    return {
      name: `flood: another account's POST /messages p99 at ${VICTIM_RATE}/s while one key floods past its limit (${FLOOD_CONNECTIONS} connections, ${fmt(floodKb)} KB bodies, ${fmt(flood.requestsPerSec)} req/s, ${fmt((flood.non2xx / Math.max(1, flood.total)) * 100, 1)}% refused with 429), SQLite durable, info log`,
      measured: `p50 ${fmt(flooded.p50Ms)} ms, p99 ${fmt(flooded.p99Ms)} ms`,
      baseline: `p50 ${fmt(quiet.p50Ms)} ms, p99 ${fmt(quiet.p99Ms)} ms (same account, same rate, no flood)`,
      ratio,
      target: '≤ 2× quiet p99',
      met: ratio <= 2,
    };
  } finally {
    await inst.close();
    await destination.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
