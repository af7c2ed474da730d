/**
 * Campaigns through crashes, pauses and restarts: a worker process killed in the middle of a campaign, an expansion
 * whose batch dies before it commits, and a send paused and resumed while it delivers. Every subscriber ends with
 * exactly one delivery row and one email.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { Worker } from '../../jobs/worker.ts';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { startSmtpSink, type SmtpSink } from '../../test/smtp-sink.ts';
import { startDeliveryWorker } from '../../delivery/delivery.test-support.ts';
import { waitFor } from '../../test/wait.ts';
import { keyOf, marketingClient } from '../marketing.test-support.ts';
import { listOfMany, startSendOf } from './sends.test-support.ts';
import { makeMailing } from '../mailings/mailings.test-support.ts';
import { expandSlice } from './expand.ts';
import { MARKETING_DELIVERY_QUEUE } from '../deliveries/deliveries.service.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** The doomed worker's lease: short, so its claims lapse soon after the kill. Workers in this process keep the default:
 * a 1 s lease can lapse under a loaded host's pauses and hand a job still in flight to a second slot. */
const LEASE_MS = 1000;
/** The sink stalls on this DATA, so the kill lands in the middle of a send. */
const STALL_AT = 4;

let t: TestApp;
let acct: TestAccount;
let sink: SmtpSink;
let call: ReturnType<typeof marketingClient>;
let child: ChildProcess | undefined;
let worker: Worker | undefined;
let mailing: string;

beforeAll(async () => {
  sink = await startSmtpSink({ tls: 'starttls', reply: (n) => (n === STALL_AT ? 'stall' : { code: 250 }) });
  t = await createTestApp({
    config: { transport: 'relay', relayUrl: sink.url, tlsVerify: false },
  });
  acct = await t.createAccount();
  call = marketingClient(t, acct);
  mailing = await makeMailing(call, 'Monthly news', {
    html_part: '<p>Hi {{first_name}}</p>',
    from_email: `news@${acct.domain}`,
  });
});
afterEach(async () => {
  await worker?.stop(2000);
  worker = undefined;
});
afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await sink.close();
  await t.close();
});

const listOf = (name: string, prefix: string, n: number) => listOfMany(call, name, prefix, n);
const startSend = (list: string) => startSendOf(call, acct, mailing, list);

const sendOf = async (id: string) =>
  (await call('GET', `/campaign_mailing_sends/${id}`)).json().data.attributes as Record<string, unknown>;
const receivedBy = (prefix: string) =>
  sink.received.map((m) => m.to[0]!).filter((to) => to.startsWith(`${prefix}-`));

async function deliveryRows(sendId: string | number) {
  return t.ctx.database.db
    .selectFrom('marketing_deliveries')
    .select(['id', 'subscriber_id', 'status'])
    .where(
      'send_id',
      '=',
      typeof sendId === 'number' ? sendId : await keyOf(t, 'campaign_mailing_sends', sendId),
    )
    .execute();
}

it('delivers every subscriber exactly once after the worker is killed mid-campaign', async () => {
  const list = await listOf('Crash', 'crash', 30);
  const sendId = await startSend(list);
  // The doomed worker delivers one email at a time, so the stalled send is the only one in flight when it dies.
  child = spawn(
    process.execPath,
    [
      'bin/run-ts.js',
      'src/delivery/fixtures/delivery-worker-process.ts',
      t.scratch.url,
      t.ctx.config.masterKey!,
      sink.url,
      String(LEASE_MS),
      '1',
    ],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  // A guard, not a timing: the child compiles the worker's modules first, slowly on a loaded host.
  await waitFor(
    () => sink.dataCount() === STALL_AT,
    45_000,
    20,
    `the doomed worker reaching DATA ${STALL_AT} (${output})`,
  );
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
  expect(receivedBy('crash')).toHaveLength(STALL_AT - 1);

  worker = startDeliveryWorker(t);
  await waitFor(
    async () => (await sendOf(sendId)).state === 'sent',
    20_000,
    50,
    'the send finishing after the restart',
  );
  const rows = await deliveryRows(sendId);
  expect(rows).toHaveLength(30);
  expect(new Set(rows.map((r) => r.subscriber_id)).size).toBe(30);
  expect(rows.every((r) => r.status === 'delivered')).toBe(true);
  const received = receivedBy('crash');
  expect(received).toHaveLength(30);
  expect(new Set(received).size).toBe(30);
  expect(await sendOf(sendId)).toMatchObject({ audience_count: 30, sent_count: 30, delivered_count: 30 });
});

it('resumes an expansion whose batch died before committing, without a second delivery for anyone', async () => {
  const list = await listOf('Expansion', 'expand', 25);
  const sendId = await keyOf(t, 'campaign_mailing_sends', await startSend(list));
  let calls = 0;
  const dying = () => {
    if (++calls === 4) throw new Error('the process died here');
    return Date.now();
  };
  await expect(expandSlice(t.ctx, sendId, { batchSize: 10, now: dying })).rejects.toThrow(
    'the process died here',
  );
  const partial = await deliveryRows(sendId);
  expect(partial.length).toBeGreaterThan(0);
  expect(partial.length).toBeLessThan(25);
  // Someone joining after the audience froze is not part of this send.
  await call('POST', '/subscribers', {
    subscriber: { email: 'late@patients.example' },
    subscription_list_id: list,
  });

  expect(await expandSlice(t.ctx, sendId, { batchSize: 10 })).toBe(25 - partial.length);
  expect(await expandSlice(t.ctx, sendId, { batchSize: 10 })).toBe(0);
  const rows = await deliveryRows(sendId);
  expect(rows).toHaveLength(25);
  expect(new Set(rows.map((r) => r.subscriber_id)).size).toBe(25);
  const jobs = await t.ctx.database.db
    .selectFrom('jobs')
    .select('payload')
    .where('queue', '=', MARKETING_DELIVERY_QUEUE)
    .execute();
  const ids = jobs
    .map((j) => (JSON.parse(j.payload) as { deliveryId: number }).deliveryId)
    .filter((id) => rows.some((r) => r.id === id));
  expect(ids).toHaveLength(25);
  expect(new Set(ids).size).toBe(25);
  expect(await sendOf(String(sendId))).toMatchObject({
    state: 'sending',
    audience_count: 25,
    sent_count: 25,
  });
});

it('paces between expansion batches, asking to wait at most as long as the last batch took', async () => {
  const list = await listOf('Paced expansion', 'paced', 25);
  const sendId = await keyOf(t, 'campaign_mailing_sends', await startSend(list));
  const asked: number[] = [];
  const pace = async (maxWaitMs?: number) => {
    asked.push(maxWaitMs ?? -1);
  };
  expect(await expandSlice(t.ctx, sendId, { batchSize: 10, pace })).toBe(25);
  // Three batches (10, 10, 5): a pause before the second and the third, each bounded by a batch's own time.
  expect(asked).toHaveLength(2);
  expect(asked.every((ms) => ms > 0 && ms < 5000)).toBe(true);
});

it('finishes a send on resume when its last deliveries settled while it was paused', async () => {
  const list = await listOf('Settled while paused', 'settled', 2);
  const sendId = await keyOf(t, 'campaign_mailing_sends', await startSend(list));
  await expandSlice(t.ctx, sendId);
  expect((await call('POST', `/campaign_mailing_sends/${sendId}/pause`)).statusCode).toBe(200);
  // Both deliveries finish while the send is paused (they were past the gate when it paused).
  const db = t.ctx.database.db;
  await db
    .updateTable('marketing_deliveries')
    .set({ status: 'delivered', delivery_status: 'delivered' })
    .where('send_id', '=', sendId)
    .execute();
  await db.updateTable('campaign_mailing_sends').set({ settled_count: 2 }).where('id', '=', sendId).execute();
  const resumed = await call('POST', `/campaign_mailing_sends/${sendId}/resume`);
  expect(resumed.statusCode, resumed.body).toBe(200);
  expect(resumed.json().data.attributes.state).toBe('sent');
});

it('stops starting emails while paused and finishes everyone once resumed', async () => {
  const list = await listOf('Pause', 'pause', 40);
  worker = startDeliveryWorker(t, { marketingSendRate: 40, marketingConcurrency: 2 });
  const sendId = await startSend(list);
  await waitFor(() => receivedBy('pause').length >= 3, 30_000, 10, 'the first emails');
  const paused = await call('POST', `/campaign_mailing_sends/${sendId}/pause`);
  expect(paused.statusCode, paused.body).toBe(200);
  expect(paused.json().data.attributes.state).toBe('paused');
  expect((await call('POST', `/campaign_mailing_sends/${sendId}/pause`)).statusCode).toBe(409);
  await sleep(400); // emails already past the gate finish
  const settled = receivedBy('pause').length;
  await sleep(600);
  expect(receivedBy('pause').length).toBe(settled);
  expect(settled).toBeLessThan(40);
  expect((await deliveryRows(sendId)).some((r) => r.status === 'paused')).toBe(true);

  const resumed = await call('POST', `/campaign_mailing_sends/${sendId}/resume`);
  expect(resumed.statusCode, resumed.body).toBe(200);
  expect(resumed.json().data.attributes.state).toBe('sending');
  await waitFor(
    async () => (await sendOf(sendId)).state === 'sent',
    20_000,
    50,
    'the resumed send finishing',
  );
  const received = receivedBy('pause');
  expect(received).toHaveLength(40);
  expect(new Set(received).size).toBe(40);
  expect((await call('POST', `/campaign_mailing_sends/${sendId}/resume`)).statusCode).toBe(409);
});
