/**
 * The cost of watching a send: a send to N subscribers (100,000 by default) is timed from its start through the API to
 * its finish (state `sent`), once with nobody watching and once with console viewers on the send's page, each
 * polling the page's live-progress URL as the page's script does (one request a second after the previous answer).
 * The service runs as users run it (`sealpost start --roles api,worker` in a process of its own, on the embedded
 * default, capture transport), on a fresh data directory per run with the audience seeded by SQL (not timed). The
 * viewers sign in through the real sign-in form, open the send's page and poll the `data-poll` URL it names; they run
 * in the benchmark's process, not the service's. The runs alternate unwatched, watched, watched, unwatched so that a
 * drift in the machine's load hits both sides; the ratio of the summed durations is reported. Target: ≤ 1.05.
 */
import os from 'node:os';
import { createUser } from '../src/users/users.service.ts';
import { seedAudience, startSend, startService, type Service } from './campaign.ts';
import { embedded, fmt, type BenchInstance, type BenchRow } from './support.ts';

const VIEWERS = 5;
const POLL_MS = 1000;
const RATIO_TARGET = 1.05;
const PASSWORD = 'bench viewer password';

/** What the viewers saw during one run. */
interface Watch {
  polls: number;
  failures: number;
  latenciesMs: number[];
}

/** One timed send: its duration and, when watched, what the viewers did meanwhile. */
interface Run {
  watched: boolean;
  seconds: number;
  watch?: Watch;
}

/** Cookies set by a response, merged over a `cookie` header value. */
function withCookies(jar: string, res: Response): string {
  const map = new Map(
    jar
      .split('; ')
      .filter(Boolean)
      .map((c) => [c.split('=')[0]!, c] as const),
  );
  for (const line of res.headers.getSetCookie()) {
    const pair = line.split(';')[0]!;
    map.set(pair.split('=')[0]!, pair);
  }
  return [...map.values()].join('; ');
}

/** Signs a console user in through the sign-in form; returns the session's cookie header. */
async function signIn(service: Service, email: string): Promise<string> {
  const form = await fetch(`${service.url}/console/sign-in`);
  const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1];
  if (!token) throw new Error('the sign-in page has no form token');
  const jar = withCookies('', form);
  const res = await fetch(`${service.url}/console/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: jar, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: token, email, password: PASSWORD, next: '/console' }).toString(),
  });
  if (res.status !== 303) throw new Error(`sign-in answered ${res.status}`);
  return withCookies(jar, res);
}

/** Opens the send's page and returns the URL its progress script polls. */
async function pollUrl(service: Service, cookie: string, uuid: string): Promise<string> {
  const res = await fetch(`${service.url}/console/campaigns/sends/${uuid}`, { headers: { cookie } });
  const page = await res.text();
  const url = /data-poll="([^"]+)"/.exec(page)?.[1];
  if (res.status !== 200 || !url) throw new Error(`the send's page (${res.status}) has no live progress`);
  return url.replaceAll('&amp;', '&');
}

/** One viewer: opens the page, then polls as progress.js does until the answer says finished or `stop` is set. */
async function view(service: Service, cookie: string, uuid: string, watch: Watch, stop: { done: boolean }) {
  const url = `${service.url}${await pollUrl(service, cookie, uuid)}`;
  await new Promise((r) => setTimeout(r, POLL_MS));
  while (!stop.done) {
    const t = performance.now();
    const res = await fetch(url, { headers: { cookie, accept: 'application/json' } }).catch(() => undefined);
    const data = res?.ok ? ((await res.json()) as { finished?: boolean }) : undefined;
    watch.latenciesMs.push(performance.now() - t);
    if (!data) watch.failures++;
    else watch.polls++;
    if (data?.finished) return;
    await new Promise((r) => setTimeout(r, data ? POLL_MS : 3 * POLL_MS));
  }
}

/** Waits until the send has finished; returns the seconds since `started`. */
async function waitFinished(
  inst: BenchInstance,
  sendId: number,
  started: number,
  n: number,
): Promise<number> {
  const timeoutMs = Math.max(600_000, n * 20);
  for (;;) {
    const row = await inst.ctx.database.reader
      .selectFrom('campaign_mailing_sends')
      .select(['state', 'delivered_count'])
      .where('id', '=', sendId)
      .executeTakeFirstOrThrow();
    if (row.state === 'sent') return (performance.now() - started) / 1000;
    if (row.state === 'cancelled') throw new Error('the send was cancelled');
    if (performance.now() - started > timeoutMs)
      throw new Error(
        `the send to ${n} was not finished after ${timeoutMs / 1000} s (${row.delivered_count} delivered)`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One send to `n` subscribers on a fresh instance, watched by `viewers` console users (0: nobody). */
async function timedSend(n: number, viewers: number): Promise<Run> {
  const inst = await embedded({ sqliteSynchronous: 'NORMAL' });
  try {
    const listId = await seedAudience(inst, n);
    const db = inst.ctx.database.db;
    const customerId = (await db.selectFrom('customers').select('id').executeTakeFirstOrThrow()).id;
    const emails = Array.from({ length: viewers }, (_, i) => `viewer${i}@bench.example`);
    for (const email of emails)
      await createUser(
        db,
        { customerId, email, role: 'viewer', password: PASSWORD },
        { type: 'system', id: 'bench' },
      );
    const service = await startService(inst);
    try {
      const cookies = await Promise.all(emails.map((email) => signIn(service, email)));
      const started = performance.now();
      const sendId = await startSend(service, inst, listId);
      const { uuid } = await inst.ctx.database.reader
        .selectFrom('campaign_mailing_sends')
        .select('uuid')
        .where('id', '=', sendId)
        .executeTakeFirstOrThrow();
      const watch: Watch = { polls: 0, failures: 0, latenciesMs: [] };
      const stop = { done: false };
      const watching = Promise.all(cookies.map((cookie) => view(service, cookie, uuid, watch, stop)));
      const seconds = await waitFinished(inst, sendId, started, n);
      stop.done = true;
      await watching;
      return { watched: viewers > 0, seconds, watch: viewers > 0 ? watch : undefined };
    } finally {
      await service.stop();
    }
  } finally {
    await inst.close();
  }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** Unwatched, watched, watched, unwatched sends to `n` subscribers; the ratio of watched to unwatched time. */
export async function campaignPollingBench(n: number, viewers = VIEWERS): Promise<BenchRow[]> {
  const load = os.loadavg()[0]!;
  const runs: Run[] = [];
  for (const watched of [false, true, true, false]) {
    const run = await timedSend(n, watched ? viewers : 0);
    process.stdout.write(
      `    ${watched ? `watched by ${viewers}` : 'unwatched'}: ${fmt(run.seconds, 1)} s${run.watch ? ` (${run.watch.polls} polls)` : ''}\n`,
    );
    runs.push(run);
  }
  const sum = (w: boolean) => runs.filter((r) => r.watched === w).reduce((s, r) => s + r.seconds, 0);
  const each = (w: boolean) =>
    runs
      .filter((r) => r.watched === w)
      .map((r) => `${fmt(r.seconds, 1)} s`)
      .join(', ');
  const watches = runs.flatMap((r) => (r.watch ? [r.watch] : []));
  const latencies = watches.flatMap((w) => w.latenciesMs);
  const polls = watches.reduce((s, w) => s + w.polls, 0);
  const failures = watches.reduce((s, w) => s + w.failures, 0);
  const ratio = sum(true) / sum(false);
  return [
    {
      name: `campaign page polling: send to ${fmt(n)} subscribers (capture) watched by ${viewers} console viewers polling its live progress every ${POLL_MS / 1000} s, start to finished; runs unwatched, watched, watched, unwatched (load average ${fmt(load, 1)} at the start)`,
      measured: `${each(true)} watched (${fmt(polls)} polls, ${failures} failed, poll p50 ${fmt(percentile(latencies, 50), 1)} ms, p99 ${fmt(percentile(latencies, 99), 1)} ms)`,
      baseline: `${each(false)} unwatched`,
      ratio,
      target: `watched / unwatched ≤ ${RATIO_TARGET}`,
      met: ratio <= RATIO_TARGET,
    },
  ];
}
