/**
 * Crash safety of delivery: a worker process killed in the middle of a delivery leaves its work row leased; once the
 * lease expires another worker delivers the message, and exactly one outcome is recorded. The killed process is
 * src/delivery/fixtures/delivery-worker-process.ts; the SMTP server stalls on the first DATA so the kill lands mid-send.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Worker } from '../jobs/worker.ts';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { startSmtpSink, type SmtpSink } from '../test/smtp-sink.ts';
import { waitFor } from '../test/wait.ts';
import {
  eventsOf,
  receiptOf,
  recipientRows,
  sendMessage,
  spawnDeliveryProcess,
  startDeliveryWorker,
  waitUntilFinished,
} from './delivery.test-support.ts';

/** The doomed worker's lease, short so its claim lapses soon after the kill; workers here keep the default. */
const LEASE_MS = 1000;

let t: TestApp;
let acct: TestAccount;
let sink: SmtpSink;
let child: ChildProcess | undefined;
let worker: Worker | undefined;

beforeAll(async () => {
  sink = await startSmtpSink({ tls: 'starttls', reply: (n) => (n === 1 ? 'stall' : { code: 250 }) });
  t = await createTestApp({
    config: { transport: 'relay', relayUrl: sink.url, tlsVerify: false },
  });
  acct = await t.createAccount();
});
afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await worker?.stop(2000);
  await sink.close();
  await t.close();
});

it('delivers exactly once after a worker dies mid-delivery and its lease expires', async () => {
  const id = await sendMessage(t, acct, {});
  const doomed = spawnDeliveryProcess(t, sink.url, LEASE_MS);
  child = doomed.child;
  await waitFor(() => sink.dataCount() === 1, 45_000, 20, 'the doomed worker reaching DATA');

  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
  const [stuck] = await recipientRows(t, id);
  expect(stuck).toMatchObject({ status: 'queued', delivery_status: 'processing' });

  worker = startDeliveryWorker(t);
  await waitUntilFinished(t, id, 10_000);

  expect(
    (await receiptOf(t, acct, id)).data.message.message_deliveries.map((d) => d.status.deliveryStatus),
  ).toEqual(['delivered']);
  expect((await eventsOf(t, id)).map((e) => e.event)).toEqual(['delivered']);
  expect((await recipientRows(t, id))[0]).toMatchObject({ status: 'delivered', attempts: 2 });
  expect(sink.received).toHaveLength(1);
  // The worker settles the work row after the outcome it recorded is committed.
  const jobRow = () =>
    t.ctx.database.db
      .selectFrom('jobs')
      .select(['state', 'attempts', 'lease_owner'])
      .executeTakeFirstOrThrow();
  const job = await waitFor(
    async () => ((await jobRow()).state === 'running' ? undefined : jobRow()),
    5_000,
    10,
    'the work row settling',
  );
  expect(job).toMatchObject({ state: 'done', attempts: 2 });
  expect(job.lease_owner).not.toBe('doomed-worker');
}, 120_000);
