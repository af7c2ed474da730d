/**
 * Recipient-count benchmark: one message with 1,000 visible recipients delivered through the relay transport to a
 * loopback STARTTLS sink, against 10 one-recipient messages delivered the same way; the per-recipient cost must stay
 * within 2× (linear, not growing with the recipient list); and, as a steadier baseline, against as many one-recipient
 * messages as the big one has recipients. Meanwhile another account sends one-recipient messages
 * through the HTTP API; its p99 during the big delivery is compared with its p99 on an idle server. The same message
 * without open and click tracking, whose copies are all alike and rendered once, is compared with it tracked.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startRoles } from '../src/app/roles.ts';
import { submitMessages } from '../src/email/submit.ts';
import { normalizeMessage } from '../src/email/message-input.ts';
import { createAccount } from '../src/accounts/accounts.service.ts';
import { addDomain } from '../src/accounts/domains.service.ts';
import { createKey } from '../src/accounts/keys.service.ts';
import { startSink } from './deliver.ts';
import {
  BENCH_BY,
  embedded,
  fmt,
  load,
  type BenchInstance,
  type BenchRow,
  type LoadResult,
} from './support.ts';

const html =
  '<p>Your results are ready.</p><p><a href="https://portal.example.org/results">Open the portal</a></p>';

async function deliverAll(
  inst: BenchInstance,
  recipientsPerMessage: number,
  messages: number,
  tracked = true,
): Promise<number> {
  const before = await delivered(inst);
  // From the first submission: the worker already runs, so small messages are delivered while later ones are submitted.
  const start = performance.now();
  for (let m = 0; m < messages; m++) {
    const message = normalizeMessage({
      recipients: Array.from({ length: recipientsPerMessage }, (_, i) => `patient${m}.${i}@example.org`),
      headers: { subject: 'Your results', from: `Clinic <noreply@${inst.domain}>` },
      content: { 'text/plain': 'Your results are ready.', 'text/html': html },
    });
    await submitMessages(inst.ctx, { customerId: 1, domain: inst.domain }, [message], {
      source: 'api',
      tracking: { openTracking: tracked, linkTracking: tracked },
    });
  }
  const total = recipientsPerMessage * messages;
  const deadline = Date.now() + 600_000;
  while ((await delivered(inst)) - before < total) {
    if (Date.now() > deadline) throw new Error('recipients benchmark timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
  return (performance.now() - start) / 1000;
}

/** The event-loop delay of this process from now until stop(): how long the loop was held between turns. */
function loopDelay(): { stop(): { p99Ms: number; maxMs: number } } {
  const h = monitorEventLoopDelay({ resolution: 5 });
  h.enable();
  return {
    stop() {
      h.disable();
      return { p99Ms: h.percentile(99) / 1e6, maxMs: h.max / 1e6 };
    },
  };
}

async function delivered(inst: BenchInstance): Promise<number> {
  const row = await inst.ctx.database.db
    .selectFrom('message_recipients')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'delivered')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** What one phase measured: small and big delivery times, and the other account's latency idle and during the big one. */
interface Phase {
  small: number;
  big: number;
  idle: LoadResult;
  busy: LoadResult;
  idleSlices: { p99Ms: number; maxMs: number };
  busySlices: { p99Ms: number; maxMs: number };
}

/** Runs `fn` with the api and worker roles started in this process, paced or not. */
async function withRoles<T>(
  inst: BenchInstance,
  pace: boolean,
  fn: (httpAddress: string) => Promise<T>,
): Promise<T> {
  const running = await startRoles(inst.ctx, ['api', 'worker'], { pace });
  try {
    return await fn(running.httpAddress!);
  } finally {
    await running.stop();
  }
}

async function phase(
  inst: BenchInstance,
  recipients: number,
  loadSeconds: number,
  request: { body: string; headers: Record<string, string> },
  pace: boolean,
): Promise<Phase> {
  return withRoles(inst, pace, async (address) => {
    const url = `${address}/v1/email/messages`;
    const run = () => load(url, { connections: 4, seconds: loadSeconds, ...request, rate: 100 });
    await deliverAll(inst, 1, 10); // warm-up: connections, code paths
    const small = await deliverAll(inst, 1, 10);
    const idleLoop = loopDelay();
    const idle = await run();
    const idleSlices = idleLoop.stop();
    const busyLoop = loopDelay();
    const [big, busy] = await Promise.all([deliverAll(inst, recipients, 1), run()]);
    return { small, big, idle, busy, idleSlices, busySlices: busyLoop.stop() };
  });
}

/** Runs the benchmark: `recipients` visible recipients in one message against 10 one-recipient messages. */
export async function recipientsBench(recipients: number, loadSeconds: number): Promise<BenchRow[]> {
  const sink = await startSink();
  const inst = await embedded({
    transport: 'relay',
    relayUrl: `smtp://127.0.0.1:${sink.port}`,
    tlsVerify: false,
    workerPollMs: 50,
    maxRecipientsPerMessage: Math.max(1000, recipients),
  });
  try {
    const other = await createAccount(inst.ctx.database.db, 'other');
    await addDomain(inst.ctx.database.db, inst.ctx.sealer, other.customer_id, 'other.example', BENCH_BY, {
      verified: true,
    });
    const otherKey = (
      await createKey(inst.ctx.database.db, other.customer_id, {
        scopes: 'email',
        domain: 'other.example',
        by: BENCH_BY,
      })
    ).key;
    const body = JSON.stringify({
      data: {
        message: {
          recipients: ['x@example.org'],
          headers: { from: 'noreply@other.example', subject: 's' },
          content: { 'text/plain': 'x' },
        },
      },
    });
    const headers = { authorization: `Bearer ${otherKey}` };
    // The same delivery twice, each beside its own idle measurement: work rows unpaced, then paced by the loop's lag.
    const unpaced = await phase(inst, recipients, loadSeconds, { body, headers }, false);
    const paced = await phase(inst, recipients, loadSeconds, { body, headers }, true);
    const many = await withRoles(inst, true, () => deliverAll(inst, 1, recipients));
    // Tracked and untracked alone, one after the other once warm, so both run under the same conditions.
    const [trackedAlone, untracked] = await withRoles(inst, true, async () => {
      await deliverAll(inst, 1, 10);
      return [await deliverAll(inst, recipients, 1, true), await deliverAll(inst, recipients, 1, false)];
    });
    const perBig = (paced.big / recipients) * 1000;
    const perMany = (many / recipients) * 1000;
    const perSmall = (paced.small / 10) * 1000;
    const costRatio = perBig / perSmall;
    const p99Row = (p: Phase, how: string): BenchRow => {
      const ratio = p.busy.p99Ms / Math.max(1, p.idle.p99Ms);
      return {
        name: `recipients: another account's send p99 during that delivery (100 req/s, api and worker in one process, ${how})`,
        measured: `p99 ${fmt(p.busy.p99Ms)} ms (${p.busy.non2xx} non-2xx); event-loop delay p99 ${fmt(p.busySlices.p99Ms, 1)} ms, max ${fmt(p.busySlices.maxMs)} ms`,
        baseline: `p99 ${fmt(p.idle.p99Ms)} ms idle; event-loop delay p99 ${fmt(p.idleSlices.p99Ms, 1)} ms, max ${fmt(p.idleSlices.maxMs)} ms`,
        ratio,
        target: '≤ 2× idle p99',
        met: ratio <= 2,
      };
    };
    return [
      {
        name: `recipients: 1 message × ${recipients} visible recipients → loopback STARTTLS sink, per recipient (paced)`,
        measured: `${fmt(perBig, 2)} ms/recipient (${fmt(paced.big, 1)} s)`,
        baseline: `${fmt(perSmall, 2)} ms/recipient (10 one-recipient messages, ${fmt(paced.small, 2)} s)`,
        ratio: costRatio,
        target: '≤ 2× the one-recipient cost',
        met: costRatio <= 2,
      },
      {
        name: `recipients: the same ${recipients}-recipient message against ${recipients} one-recipient messages, per recipient (paced)`,
        measured: `${fmt(perBig, 2)} ms/recipient (${fmt(paced.big, 1)} s)`,
        baseline: `${fmt(perMany, 2)} ms/recipient (${recipients} one-recipient messages, ${fmt(many, 1)} s)`,
        ratio: perBig / perMany,
        target: '≤ 2× the one-recipient cost',
        met: perBig / perMany <= 2,
      },
      {
        name: `recipients: the same ${recipients}-recipient message without open and click tracking (one copy for all) against it tracked, each delivered with nothing else running, per recipient (paced)`,
        measured: `${fmt((untracked / recipients) * 1000, 2)} ms/recipient (${fmt(untracked, 1)} s)`,
        baseline: `${fmt((trackedAlone / recipients) * 1000, 2)} ms/recipient (the same message tracked: a copy per recipient, ${fmt(trackedAlone, 1)} s)`,
        ratio: untracked / trackedAlone,
        // Without tracking a copy is already a little cheaper to make (0.78 of a tracked one when each is rendered);
        // rendered once for all, the delivery costs little more than the SMTP conversations.
        target: '≤ 0.5 (one copy for all, against a copy each)',
        met: untracked <= 0.5 * trackedAlone,
      },
      p99Row(unpaced, `work rows unpaced: ${fmt(unpaced.big, 1)} s for the delivery`),
      p99Row(
        paced,
        `work rows paced by the loop's lag (the default): ${fmt(paced.big, 1)} s for the delivery`,
      ),
    ];
  } finally {
    await inst.close();
    await sink.close();
  }
}
