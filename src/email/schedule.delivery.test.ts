/**
 * Scheduled messages coming due, through real workers to a real STARTTLS SMTP sink: a due message is delivered once
 * however many workers run its work rows, a cancelled or rescheduled one does not go out at its old time, and the sent
 * message's receipt is read the usual way.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Worker } from '../jobs/worker.ts';
import { enqueueJob } from '../jobs/jobs.repository.ts';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { startSmtpSink, type SmtpSink } from '../test/smtp-sink.ts';
import { waitFor } from '../test/wait.ts';
import { receiptOf, startDeliveryWorker, waitUntilFinished } from '../delivery/delivery.test-support.ts';
import { postJson } from './email.test-support.ts';
import { SCHEDULED_QUEUE } from './queues.ts';
import { sendDue } from './schedule.service.ts';

let t: TestApp;
let acct: TestAccount;
let sink: SmtpSink;
let workers: Worker[] = [];
const logLines: string[] = [];

beforeAll(async () => {
  sink = await startSmtpSink({ tls: 'starttls' });
  const log = new Writable({
    write(chunk: Buffer, _enc, done) {
      logLines.push(chunk.toString('utf8'));
      done();
    },
  });
  t = await createTestApp({
    config: { transport: 'relay', relayUrl: sink.url, tlsVerify: false },
    log: pino({ level: 'debug' }, log),
  });
  acct = await t.createAccount();
});
afterEach(async () => {
  await Promise.all(workers.map((w) => w.stop(2000)));
  workers = [];
});
afterAll(async () => {
  await sink.close();
  await t.close();
});

/** Schedules a message to `to`, due in `ms`; returns its sourceTrackingId. */
async function schedule(to: string, ms: number): Promise<string> {
  const res = await postJson(t, '/v1/email/schedule', acct.auth, {
    data: {
      message: {
        recipients: [to],
        headers: { subject: 'Your results are ready', from: `clinic@${acct.domain}` },
        content: { 'text/plain': 'Potassium 4.1 mmol/L.' },
      },
      scheduled_at: new Date(Date.now() + ms).toISOString(),
    },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().sourceTrackingId as string;
}

const stateOf = async (id: string) =>
  (await t.app.inject({ method: 'GET', url: `/v1/email/schedule/${id}`, headers: acct.auth })).json()
    .state as string;
const receivedBy = (to: string) => sink.received.filter((m) => m.to.includes(to));
const messageRows = async (id: string) =>
  (await t.ctx.database.db.selectFrom('messages').select('id').where('id', '=', id).execute()).length;

function twoWorkers(): void {
  workers = [startDeliveryWorker(t), startDeliveryWorker(t)];
}

describe('a scheduled message coming due', () => {
  it('is delivered once by two workers, and its receipt is found by its sourceTrackingId', async () => {
    const to = 'due-once@patients.example';
    const id = await schedule(to, 5000);
    // A second work row for the same revision and time, as a lapsed lease replaying the row would give: both workers race.
    const { scheduled_at } = await t.ctx.database.db
      .selectFrom('scheduled_messages')
      .select('scheduled_at')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    await enqueueJob(t.ctx.database.db, {
      queue: SCHEDULED_QUEUE,
      payload: { id, revision: 0 },
      runAt: Number(scheduled_at),
      uniqueKey: `replay:${id}`,
    });
    twoWorkers();
    await waitFor(() => receivedBy(to).length > 0, 30_000, 25, 'the scheduled message delivered');
    await waitUntilFinished(t, id);
    expect(await stateOf(id)).toBe('sent');
    const receipt = await receiptOf(t, acct, id);
    expect(receipt.data.message.message_deliveries).toEqual([
      expect.objectContaining({
        recipient: to,
        status: expect.objectContaining({ deliveryStatus: 'delivered' }),
      }),
    ]);
    expect((await receivedBy(to)[0]!.parsed()).text).toContain('Potassium 4.1 mmol/L.');
    // Both work rows are done; nothing more arrives.
    await waitFor(
      async () =>
        (
          await t.ctx.database.db
            .selectFrom('jobs')
            .select('state')
            .where('queue', '=', SCHEDULED_QUEUE)
            .where('payload', 'like', `%${id}%`)
            .execute()
        ).every((j) => j.state === 'done'),
      5000,
      25,
      'both work rows done',
    );
    expect(receivedBy(to)).toHaveLength(1);
    expect(await messageRows(id)).toBe(1);
    const sent = await t.ctx.database.db
      .selectFrom('messages')
      .select('created_at')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(Number(sent.created_at)).toBeGreaterThanOrEqual(Number(scheduled_at));
    // Scheduled, held, sent and delivered, and the log (at debug) never held the body.
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('')).not.toContain('Potassium');
  });

  it('enters the pipeline once when several runs race on the same row', async () => {
    const id = await schedule('race@patients.example', 60_000);
    await Promise.all(Array.from({ length: 4 }, () => sendDue(t.ctx, id, 0)));
    expect(await messageRows(id)).toBe(1);
    const recipients = await t.ctx.database.db
      .selectFrom('message_recipients')
      .select('id')
      .where('message_id', '=', id)
      .execute();
    expect(recipients).toHaveLength(1);
    const work = await t.ctx.database.db
      .selectFrom('jobs')
      .select('id')
      .where('queue', '=', 'email.transactional')
      .where('payload', '=', JSON.stringify({ recipientId: recipients[0]!.id }))
      .execute();
    expect(work).toHaveLength(1);
    expect(await stateOf(id)).toBe('sent');
  });

  it('is never delivered once cancelled', async () => {
    const to = 'cancelled@patients.example';
    const id = await schedule(to, 4000);
    const cancelled = await postJson(t, `/v1/email/schedule/${id}/cancel`, acct.auth, {});
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    const control = 'control-after-cancel@patients.example';
    const later = await schedule(control, 5000);
    twoWorkers();
    await waitFor(() => receivedBy(control).length > 0, 30_000, 25, 'the control message delivered');
    await waitUntilFinished(t, later);
    expect(receivedBy(to)).toHaveLength(0);
    expect(await messageRows(id)).toBe(0);
    expect(await stateOf(id)).toBe('cancelled');
  });

  it('does not go out at its old time once rescheduled', async () => {
    const to = 'moved@patients.example';
    const id = await schedule(to, 4000);
    const moved = await t.app.inject({
      method: 'PATCH',
      url: `/v1/email/schedule/${id}`,
      headers: { ...acct.auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ scheduled_at: new Date(Date.now() + 3_600_000).toISOString() }),
    });
    expect(moved.statusCode, moved.body).toBe(200);
    const control = 'control-after-move@patients.example';
    const later = await schedule(control, 5000);
    twoWorkers();
    await waitFor(() => receivedBy(control).length > 0, 30_000, 25, 'the control message delivered');
    await waitUntilFinished(t, later);
    expect(receivedBy(to)).toHaveLength(0);
    expect(await stateOf(id)).toBe('scheduled');
  });
});
