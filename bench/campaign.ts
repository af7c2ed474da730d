/**
 * Campaign benchmarks, against the service run as users run it (`sealpost start --roles api,worker` in a process of its
 * own, on the embedded default) with the audience seeded by direct SQL beforehand.
 *
 * Expansion: a send to a list of N subscribers (100,000 and 1,000,000) is started through the API, and the time until
 * the worker has expanded it into N marketing deliveries (state past `expanding`, `audience_count` = N) is measured with
 * the service's peak RSS (VmHWM). The marketing lane is paced to one email a second meanwhile, so the figure is the
 * expansion's own. Baseline: one raw INSERT ... SELECT of the same N delivery rows into a table of the same shape.
 * Target: 1,000,000 expanded in under 60 s with peak RSS under 300 MB.
 *
 * Transactional latency: POST /v1/email/messages at a steady 200/s, first with no campaign (baseline), then while a
 * send to 100,000 subscribers expands and delivers through the capture transport. Target: p99 at most 50 ms while the
 * campaign sends; the ratio of the two p99s is reported.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { createList, requireList } from '../src/marketing/lists/lists.service.ts';
import {
  embedded,
  fmt,
  freePort,
  load,
  processCpuMs,
  profileArgs,
  serviceEnvOverrides,
  type BenchInstance,
  type BenchRow,
  type LoadResult,
} from './support.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const EXPANSION_TARGET_S = 60;
const RSS_TARGET_MB = 300;
const LATENCY_RATE = 200;
const LATENCY_P99_TARGET_MS = 50;

/** The service in a process of its own, over the instance's data directory. */
export interface Service {
  url: string;
  /** Peak resident memory of the service process so far, in MB. */
  peakRssMb(): number;
  /** CPU time (ms) the service process has used so far, all its threads, user and system. */
  cpuMs(): number;
  stop(): Promise<void>;
}

/**
 * Starts `sealpost start --roles <roles>` (api and worker by default) on the instance's data directory and waits until
 * it is ready; `env` adds to or overrides its environment.
 */
export async function startService(
  inst: BenchInstance,
  env: Record<string, string> = {},
  roles = 'api,worker',
): Promise<Service> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [...profileArgs(), path.join(ROOT, 'bin/sealpost.js'), 'start', '--roles', roles],
    {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: {
        ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SEALPOST_'))),
        SEALPOST_DATA_DIR: inst.ctx.config.dataDir,
        SEALPOST_HTTP_HOST: '127.0.0.1',
        SEALPOST_HTTP_PORT: String(port),
        SEALPOST_LOG_LEVEL: 'warn',
        SEALPOST_RATE_LIMIT_PER_MINUTE: '0',
        ...env,
        ...serviceEnvOverrides(),
      },
    },
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with code ${child.exitCode}`);
    const ready = await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) throw new Error('the service did not become ready');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    peakRssMb: () =>
      Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024,
    cpuMs: () => processCpuMs(child.pid!),
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Seeds `n` subscribers of the bench account, all on a new list, by direct SQL; returns the list's id. */
export async function seedAudience(inst: BenchInstance, n: number): Promise<number> {
  const db = inst.ctx.database.db;
  const customerId = (await db.selectFrom('customers').select('id').executeTakeFirstOrThrow()).id;
  const view = await createList(inst.ctx, customerId, `Audience of ${n}`);
  const list = Number((await requireList(db, customerId, view.id)).id);
  const at = Date.now() - 60_000;
  await sql`
    insert into subscribers (customer_id, email, email_key, first_name, created_at, updated_at)
    with recursive seq(i) as (select 1 union all select i + 1 from seq where i < ${n})
    select ${customerId}, 'reader' || i || '@audience.example', 'reader' || i || '@audience.example', 'Reader', ${at}, ${at} from seq`.execute(
    db,
  );
  await sql`
    insert into subscription_list_members (list_id, subscriber_id, unsubscribed, created_at, updated_at)
    select ${list}, id, 0, ${at}, ${at} from subscribers where customer_id = ${customerId} and email_key like '%@audience.example'`.execute(
    db,
  );
  await db.updateTable('subscription_lists').set({ subscriber_count: n }).where('id', '=', list).execute();
  return list;
}

/** Seconds one raw INSERT ... SELECT takes to write the list's deliveries into a table shaped like marketing_deliveries. */
async function rawExpansionSeconds(inst: BenchInstance, listId: number): Promise<number> {
  const db = inst.ctx.database.db;
  await sql`create table bench_deliveries as select * from marketing_deliveries where 0`.execute(db);
  await sql`create unique index bench_deliveries_send_subscriber on bench_deliveries (send_id, subscriber_id)`.execute(
    db,
  );
  const now = Date.now();
  const started = performance.now();
  await sql`
    insert into bench_deliveries (customer_id, send_id, campaign_mailing_id, subscriber_id, email, status, delivery_status, created_at, updated_at)
    select s.customer_id, 1, 1, s.id, s.email, 'queued', 'queued', ${now}, ${now}
    from subscription_list_members m join subscribers s on s.id = m.subscriber_id
    where m.list_id = ${listId} and m.unsubscribed = 0 and s.unsubscribed = 0`.execute(db);
  const seconds = (performance.now() - started) / 1000;
  await sql`drop table bench_deliveries`.execute(db);
  return seconds;
}

/** A JSON POST to the service with the bench key; throws unless it answers 200. */
async function post(
  service: Service,
  inst: BenchInstance,
  urlPath: string,
  body: unknown,
): Promise<{ data?: { id: string }; headers: Headers }> {
  const res = await fetch(`${service.url}${urlPath}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${inst.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST ${urlPath} answered ${res.status}: ${text}`);
  return { ...(JSON.parse(text) as { data?: { id: string } }), headers: res.headers };
}

/** Creates a mailing and starts its send to the list through the API; returns the send's id. */
export async function startSend(service: Service, inst: BenchInstance, listId: number): Promise<number> {
  const from_email = `news@${inst.domain}`;
  const mailing = await post(service, inst, '/v1/marketing/campaign_mailings', {
    campaign_mailing: {
      subject: `Monthly news ${Date.now()}`,
      html_part:
        '<html><body><p>Hello {{first_name}}, this month at the clinic: longer opening hours.</p><a href="https://clinic.example/news">Read more</a></body></html>',
      text_part: 'Hello, this month at the clinic: longer opening hours. https://clinic.example/news',
      from_email,
      from_name: 'The Clinic',
    },
  });
  const mailingId = mailing.data!.id;
  const send = await post(service, inst, '/v1/marketing/campaign_mailing_sends', {
    campaign_mailing_id: mailingId,
    campaign_mailing_send: {
      subscription_list_id: listId,
      from_email,
      from_name: 'The Clinic',
      sender_email: from_email,
      subject: 'Monthly news',
    },
  });
  // The send's integer id, as the service announces it.
  return Number(send.headers.get('sealpost-campaign-mailing-send-id'));
}

/** The send's state and audience count, read from the database. */
export async function sendProgress(inst: BenchInstance, sendId: number) {
  return inst.ctx.database.reader
    .selectFrom('campaign_mailing_sends')
    .select(['state', 'audience_count', 'delivered_count'])
    .where('id', '=', sendId)
    .executeTakeFirstOrThrow();
}

/** Waits until the send has left `expanding` with all `n` deliveries; returns the seconds since `started`. */
async function waitExpanded(
  inst: BenchInstance,
  sendId: number,
  n: number,
  started: number,
  timeoutS: number,
): Promise<number> {
  for (;;) {
    const p = await sendProgress(inst, sendId);
    if (p.state !== 'expanding' && p.state !== 'scheduled' && p.audience_count >= n)
      return (performance.now() - started) / 1000;
    if (p.state === 'cancelled') throw new Error('the send was cancelled');
    if (performance.now() - started > timeoutS * 1000)
      throw new Error(
        `expansion of ${n} not done after ${timeoutS} s (state ${p.state}, audience ${p.audience_count})`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Expansion of sends to lists of each size. */
export async function campaignExpansionBench(sizes: number[]): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const n of sizes) {
    const inst = await embedded({ sqliteSynchronous: 'NORMAL' });
    try {
      const listId = await seedAudience(inst, n);
      const baseline = await rawExpansionSeconds(inst, listId);
      const service = await startService(inst, { SEALPOST_MARKETING_SEND_RATE: '1' });
      try {
        const started = performance.now();
        const sendId = await startSend(service, inst, listId);
        const seconds = await waitExpanded(inst, sendId, n, started, Math.max(300, n / 1000));
        const rss = service.peakRssMb();
        const target = (EXPANSION_TARGET_S * n) / 1_000_000;
        rows.push({
          name: `campaign expansion: send to ${fmt(n)} subscribers → ${fmt(n)} deliveries with work rows, SQLite durable`,
          measured: `${fmt(seconds, 1)} s (${fmt(n / seconds)} deliveries/s), service peak RSS ${fmt(rss)} MB`,
          baseline: `${fmt(baseline, 2)} s (one raw INSERT ... SELECT of the delivery rows only)`,
          ratio: seconds / baseline,
          target: `< ${fmt(target, 0)} s and peak RSS < ${RSS_TARGET_MB} MB`,
          met: seconds < target && rss < RSS_TARGET_MB,
        });
      } finally {
        await service.stop();
      }
    } finally {
      await inst.close();
    }
  }
  return rows;
}

function transactionalBody(domain: string): string {
  return JSON.stringify({
    data: {
      message: {
        recipients: ['patient@example.org'],
        headers: { subject: 'Password reset', from: `Clinic <noreply@${domain}>` },
        content: { 'text/plain': 'Use this code to reset your password: 381 442.' },
      },
    },
  });
}

/** p50/p99 of transactional sends at a steady rate, without and then with a 100,000-subscriber campaign sending. */
export async function transactionalLatencyBench(seconds: number, audience = 100_000): Promise<BenchRow[]> {
  const inst = await embedded({ sqliteSynchronous: 'NORMAL' });
  try {
    const listId = await seedAudience(inst, audience);
    const service = await startService(inst);
    try {
      const url = `${service.url}/v1/email/messages`;
      const opts = {
        connections: 10,
        seconds,
        body: transactionalBody(inst.domain),
        headers: { authorization: `Bearer ${inst.key}` },
        rate: LATENCY_RATE,
      };
      await load(url, { ...opts, seconds: 2 }); // warm-up
      const quiet = checked(await load(url, opts));
      const sendId = await startSend(service, inst, listId);
      const before = await sendProgress(inst, sendId);
      const busy = checked(await load(url, opts));
      const after = await sendProgress(inst, sendId);
      if (after.state === 'sent')
        throw new Error('the campaign finished before the measured run did: raise its audience');
      const ratio = busy.p99Ms / quiet.p99Ms;
      return [
        {
          name: `transactional latency: POST /messages at ${LATENCY_RATE}/s while a send to ${fmt(audience)} expands and delivers (capture)`,
          measured: `p50 ${fmt(busy.p50Ms)} ms, p99 ${fmt(busy.p99Ms)} ms (campaign ${before.state} → ${after.state}, ${fmt(after.audience_count)} deliveries expanded and ${fmt(after.delivered_count - before.delivered_count)} delivered meanwhile)`,
          baseline: `p50 ${fmt(quiet.p50Ms)} ms, p99 ${fmt(quiet.p99Ms)} ms (same rate, no campaign)`,
          ratio,
          target: `p99 ≤ ${LATENCY_P99_TARGET_MS} ms while the campaign sends`,
          met: busy.p99Ms <= LATENCY_P99_TARGET_MS,
        },
      ];
    } finally {
      await service.stop();
    }
  } finally {
    await inst.close();
  }
}

function checked(r: LoadResult): LoadResult {
  if (r.non2xx > 0 || r.errors > 0)
    throw new Error(`transactional load saw ${r.non2xx} non-2xx responses and ${r.errors} errors`);
  return r;
}
