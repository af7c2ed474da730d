/**
 * Several nodes, one database: two worker processes deliver a batch to a real SMTP server; one is killed (SIGKILL) in
 * the middle. The survivor sees its heartbeat stop and takes over its leased rows after the takeover limit, not after
 * the five-minute lease, and only the deliveries that were in flight at the kill may go out twice, with one Message-ID.
 * The processes are src/delivery/fixtures/delivery-worker-process.ts.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { startSmtpSink, type SmtpSink } from '../test/smtp-sink.ts';
import { waitFor } from '../test/wait.ts';
import { sendMessage, spawnDeliveryProcess, type DeliveryProcess } from './delivery.test-support.ts';

/** The default lease: without a takeover, the killed worker's rows would wait this long. */
const LEASE_MS = 300_000;
const TAKEOVER_MS = 2000;
const MESSAGES = 40;

let t: TestApp;
let acct: TestAccount;
let sink: SmtpSink;
const children: ChildProcess[] = [];

beforeAll(async () => {
  sink = await startSmtpSink({ replyDelayMs: 300 });
  t = await createTestApp({ config: { transport: 'relay', relayUrl: sink.url, tlsVerify: false } });
  acct = await t.createAccount();
});
afterAll(async () => {
  for (const c of children)
    if (c.exitCode === null && c.signalCode === null) {
      const exited = once(c, 'exit');
      c.kill('SIGKILL');
      await exited;
    }
  await sink.close();
  await t.close();
});

function spawnNode(node: string): DeliveryProcess {
  const p = spawnDeliveryProcess(t, sink.url, LEASE_MS, ['', node, String(TAKEOVER_MS)]);
  children.push(p.child);
  return p;
}

/** The Message-IDs of the messages whose work rows `node` holds now. */
async function inFlightOf(node: string): Promise<string[]> {
  const { db } = t.ctx.database;
  const jobs = await db
    .selectFrom('jobs')
    .select('payload')
    .where('state', '=', 'running')
    .where('lease_owner', 'like', `${node}:%`)
    .execute();
  const ids = jobs.map((j) => (JSON.parse(j.payload) as { recipientId: number }).recipientId);
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('message_recipients')
    .innerJoin('messages', 'messages.id', 'message_recipients.message_id')
    .select('messages.header_message_id')
    .where('message_recipients.id', 'in', ids)
    .execute();
  return rows.map((r) => r.header_message_id);
}

async function unfinished(): Promise<number> {
  const row = await t.ctx.database.db
    .selectFrom('messages')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('finished_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

it('takes over a killed node’s leased mail after the takeover limit, resending only what was in flight', async () => {
  const a = spawnNode('node-a');
  const b = spawnNode('node-b');
  await waitFor(
    () => a.output().includes('ready') && b.output().includes('ready'),
    45_000,
    20,
    'both nodes ready',
  );
  for (let i = 0; i < MESSAGES; i++) await sendMessage(t, acct, { recipients: [`p${i}@example.net`] });
  const inFlight = await waitFor(
    async () => {
      const held = await inFlightOf('node-a');
      return sink.dataCount() >= 4 && held.length > 0 ? held : undefined;
    },
    30_000,
    5,
    'node-a delivering',
  );

  const exited = once(a.child, 'exit');
  a.child.kill('SIGKILL');
  const killedAt = Date.now();
  await exited;
  const lost = new Set([...inFlight, ...(await inFlightOf('node-a'))]);
  await waitFor(async () => (await unfinished()) === 0, 60_000, 20, `the rest delivered; ${b.output()}`);
  const elapsed = Date.now() - killedAt;

  // Generous slack for a loaded machine; the point is the order of magnitude against the lease.
  expect(elapsed).toBeLessThan(TAKEOVER_MS + 20_000);
  expect(elapsed).toBeLessThan(LEASE_MS / 10);
  const seen = new Map<string, number>();
  for (const mail of sink.received) {
    const id = (await mail.parsed()).messageId!;
    seen.set(id, (seen.get(id) ?? 0) + 1);
  }
  const headerIds = await t.ctx.database.db.selectFrom('messages').select('header_message_id').execute();
  expect(new Set(seen.keys())).toEqual(new Set(headerIds.map((m) => m.header_message_id)));
  const twice = [...seen].filter(([, n]) => n > 1).map(([id]) => id);
  expect(twice.filter((id) => !lost.has(id))).toEqual([]);
  expect([...seen.values()].every((n) => n <= 2)).toBe(true);
  console.info(
    `takeover: all delivered ${elapsed} ms after the kill; ${twice.length} of ${lost.size} in flight sent twice`,
  );
}, 150_000);
