/** The dispatcher end to end: events appended in transactions (or made by a real delivery) are posted, signed, retried and logged to a real receiver on loopback. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Worker } from '../jobs/worker.ts';
import { claimJobs } from '../jobs/jobs.repository.ts';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../test/webhook-receiver.ts';
import { waitFor } from '../test/wait.ts';
import { WEBHOOK_QUEUE } from './webhooks.outbox.ts';
import {
  FAST,
  addEndpoint,
  appendEvent,
  attemptsTo,
  deliveriesOf,
  sendMessage,
  signedWith,
  startWorker,
  waitUntilSettled,
} from './webhooks.test-support.ts';

const ALL_EVENTS = [
  'api_mail_log_delivered',
  'api_mail_log_opened',
  'api_mail_log_temporary_failure',
  'api_mail_log_permanent_failure',
];

let t: TestApp;
let worker: Worker | undefined;
let receiver: WebhookReceiver;

beforeAll(async () => {
  t = await createTestApp({ config: FAST });
});
afterEach(async () => {
  await worker?.stop(2000);
  worker = undefined;
  await receiver?.close();
});
afterAll(() => t.close());

async function account(): Promise<TestAccount> {
  return t.createAccount();
}

describe('a delivered message', () => {
  it('is posted as api_mail_log_delivered with the documented payload and a signature that verifies', async () => {
    receiver = await startWebhookReceiver();
    const acct = await account();
    const endpoint = await addEndpoint(t, acct, {
      target_url: receiver.url,
      events: ['api_mail_log_delivered'],
    });
    worker = startWorker(t, FAST, { all: true });
    const { messageId, recipientId } = await sendMessage(t, acct);

    const [hook] = await receiver.waitForCount(1);
    const event = await t.ctx.database.db
      .selectFrom('email_events')
      .selectAll()
      .where('message_id', '=', messageId)
      .executeTakeFirstOrThrow();
    const message = await t.ctx.database.db
      .selectFrom('messages')
      .selectAll()
      .where('id', '=', messageId)
      .executeTakeFirstOrThrow();
    expect(hook!.headers['content-type']).toBe('application/json');
    expect(hook!.json()).toEqual({
      event_name: 'api_mail_log_delivered',
      payload: {
        id: Number(event.id),
        subject: 'Your lab results',
        header_message_id: message.header_message_id,
        source_tracking_id: messageId,
        outbound_queue_id: String(recipientId),
        time: new Date(Number(event.created_at)).toISOString(),
        from: `desk@${acct.domain}`,
        to: 'patient@example.net',
        custom_headers: { 'X-Clinic-Ref': 'A-17' },
      },
    });
    expect(hook!.json().payload.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const timestamp = Number(hook!.headers['sealpost-timestamp']);
    expect(Math.abs(timestamp - Date.now() / 1000)).toBeLessThan(60);
    expect(signedWith(hook!, endpoint.signing_key)).toBe(true);
    expect(signedWith(hook!, 'whsec_not-the-key-at-all')).toBe(false);
    const [delivery] = await waitUntilSettled(t, endpoint.id, 1);
    expect(delivery).toMatchObject({
      state: 'delivered',
      attempts: 1,
      uid: hook!.headers['sealpost-event-id'],
    });
  });

  it('is posted to each subscribed endpoint of the account and to no other account', async () => {
    receiver = await startWebhookReceiver();
    const acct = await account();
    const other = await account();
    const a = await addEndpoint(t, acct, {
      target_url: `${receiver.url}?to=a`,
      events: ['api_mail_log_delivered'],
    });
    const b = await addEndpoint(t, acct, { target_url: `${receiver.url}?to=b`, events: ALL_EVENTS });
    await addEndpoint(t, acct, { target_url: `${receiver.url}?to=opens`, events: ['api_mail_log_opened'] });
    await addEndpoint(t, other, { target_url: `${receiver.url}?to=other`, events: ALL_EVENTS });
    worker = startWorker(t);
    const sent = await sendMessage(t, acct);
    await appendEvent(t, acct, sent, 'delivered');
    await waitUntilSettled(t, a.id, 1);
    await waitUntilSettled(t, b.id, 1);
    expect(receiver.received.map((h) => h.json().event_name)).toEqual([
      'api_mail_log_delivered',
      'api_mail_log_delivered',
    ]);
    const ids = receiver.received.map((h) => h.headers['sealpost-event-id']);
    expect(new Set(ids).size).toBe(2);
  });
});

describe('events', () => {
  it('posts an open counted through the tracking pixel as api_mail_log_opened', async () => {
    receiver = await startWebhookReceiver();
    const acct = await account();
    await addEndpoint(t, acct, { target_url: receiver.url, events: ['api_mail_log_opened'] });
    worker = startWorker(t);
    const sent = await sendMessage(t, acct, { content: { 'text/html': '<p>Ready.</p>' } });
    const { tokenUrls } = await import('../mail/tokens.ts');
    const pixel = new URL(
      tokenUrls.transactional.open(t.ctx.publicUrl, t.ctx.keys.tracking, sent.recipientId),
    );
    const res = await t.app.inject({ method: 'GET', url: pixel.pathname });
    expect(res.statusCode).toBe(200);
    const [hook] = await receiver.waitForCount(1);
    expect(hook!.json()).toMatchObject({
      event_name: 'api_mail_log_opened',
      payload: { source_tracking_id: sent.messageId },
    });
  });

  it('makes no delivery for a click, which is not pushed', async () => {
    const acct = await account();
    const endpoint = await addEndpoint(t, acct, {
      target_url: 'http://127.0.0.1:9/never',
      events: ALL_EVENTS,
    });
    const sent = await sendMessage(t, acct);
    await appendEvent(t, acct, sent, 'clicked');
    expect(await deliveriesOf(t, endpoint.id)).toEqual([]);
  });

  it('posts the events of one message in the order they happened, holding a later one while an earlier one is retried', async () => {
    receiver = await startWebhookReceiver((hook) => ({ status: hook.n <= 2 ? 503 : 200 }));
    const acct = await account();
    const endpoint = await addEndpoint(t, acct, { target_url: receiver.url, events: ALL_EVENTS });
    const sent = await sendMessage(t, acct);
    const first = await appendEvent(t, acct, sent, 'temporary_failure');
    const second = await appendEvent(t, acct, sent, 'delivered');
    const third = await appendEvent(t, acct, sent, 'opened');
    expect((await deliveriesOf(t, endpoint.id)).map((d) => d.state)).toEqual([
      'pending',
      'waiting',
      'waiting',
    ]);
    worker = startWorker(t);
    await waitUntilSettled(t, endpoint.id, 3);
    expect(receiver.received.map((h) => h.json().payload.id)).toEqual([first, first, first, second, third]);
  });
});

describe('failures', () => {
  it('retries while the receiver is down and posts every event once it is back', async () => {
    receiver = await startWebhookReceiver();
    await receiver.stop();
    const acct = await account();
    const endpoint = await addEndpoint(t, acct, {
      target_url: receiver.url,
      events: ['api_mail_log_delivered'],
    });
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push(await appendEvent(t, acct, await sendMessage(t, acct), 'delivered'));
    worker = startWorker(t, { webhookRetrySchedule: [100, 200, 200, 200, 200, 200, 200, 200] });
    await waitFor(async () => (await attemptsTo(t, endpoint.id)).length >= 3, 5000, 20, 'failed attempts');
    await receiver.start();
    const settled = await waitUntilSettled(t, endpoint.id, 3);
    expect(settled.map((d) => d.state)).toEqual(['delivered', 'delivered', 'delivered']);
    expect(receiver.received.map((h) => h.json().payload.id).sort()).toEqual(ids.sort());
    const attempts = await attemptsTo(t, endpoint.id);
    expect(attempts.some((a) => a.status_code === null && /ECONNREFUSED/.test(a.error ?? ''))).toBe(true);
    expect(attempts.filter((a) => a.status_code === 200)).toHaveLength(3);
  });

  it('counts a slow answer as a failed attempt and retries it under the same Sealpost-Event-Id', async () => {
    receiver = await startWebhookReceiver((hook) =>
      hook.n === 1 ? { status: 200, delayMs: 1500 } : { status: 204 },
    );
    const acct = await account();
    const endpoint = await addEndpoint(t, acct, {
      target_url: receiver.url,
      events: ['api_mail_log_delivered'],
    });
    await appendEvent(t, acct, await sendMessage(t, acct), 'delivered');
    worker = startWorker(t, { webhookTimeoutMs: 300 });
    const [delivery] = await waitUntilSettled(t, endpoint.id, 1);
    expect(delivery).toMatchObject({ state: 'delivered', attempts: 2 });
    const attempts = await attemptsTo(t, endpoint.id);
    expect(attempts.map((a) => [a.attempt, a.status_code])).toEqual([
      [1, null],
      [2, 204],
    ]);
    expect(attempts[0]!.error).toMatch(/timed out after 300 ms/);
    expect(attempts[0]!.latency_ms).toBeGreaterThanOrEqual(290);
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]!.headers['sealpost-event-id']).toBe(
      receiver.received[0]!.headers['sealpost-event-id'],
    );
  });

  it('logs each attempt with its status, latency and the start of the response, and fails the delivery after the last', async () => {
    receiver = await startWebhookReceiver(() => ({ status: 500, body: 'x'.repeat(2000) }));
    const acct = await account();
    const endpoint = await addEndpoint(t, acct, {
      target_url: receiver.url,
      events: ['api_mail_log_delivered'],
    });
    await appendEvent(t, acct, await sendMessage(t, acct), 'delivered');
    worker = startWorker(t, { webhookRetrySchedule: [20, 20] });
    const [delivery] = await waitUntilSettled(t, endpoint.id, 1);
    expect(delivery).toMatchObject({ state: 'failed', attempts: 3, last_error: 'endpoint answered 500' });
    const attempts = await attemptsTo(t, endpoint.id);
    expect(attempts.map((a) => a.status_code)).toEqual([500, 500, 500]);
    expect(attempts[0]!.response_excerpt).toHaveLength(500);
    expect(new Set(receiver.received.map((h) => h.headers['sealpost-event-id'])).size).toBe(1);
    // The worker settles the work row after the outcome it recorded is committed.
    const lastJob = () =>
      t.ctx.database.db
        .selectFrom('jobs')
        .selectAll()
        .where('queue', '=', WEBHOOK_QUEUE)
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
    const job = await waitFor(
      async () => ((await lastJob()).state === 'running' ? undefined : lastJob()),
      5_000,
      10,
      'the work row settling',
    );
    expect(job.state).toBe('failed');
  });
});

describe('crashes', () => {
  it('posts an event committed while no worker ran once a worker starts', async () => {
    receiver = await startWebhookReceiver();
    const acct = await account();
    const endpoint = await addEndpoint(t, acct, {
      target_url: receiver.url,
      events: ['api_mail_log_delivered'],
    });
    const id = await appendEvent(t, acct, await sendMessage(t, acct), 'delivered');
    expect((await deliveriesOf(t, endpoint.id)).map((d) => d.state)).toEqual(['pending']);
    expect(receiver.received).toEqual([]);
    worker = startWorker(t);
    const [hook] = await receiver.waitForCount(1);
    expect(hook!.json().payload.id).toBe(id);
  });

  it('posts an event whose worker died after claiming it, once the claim expires', async () => {
    receiver = await startWebhookReceiver();
    const acct = await account();
    const endpoint = await addEndpoint(t, acct, {
      target_url: receiver.url,
      events: ['api_mail_log_delivered'],
    });
    await appendEvent(t, acct, await sendMessage(t, acct), 'delivered');
    const db = t.ctx.database;
    const claimed = await claimJobs(db.db, db.dialect, {
      queue: WEBHOOK_QUEUE,
      owner: 'dead-worker',
      leaseMs: 300,
      limit: 10,
      now: Date.now(),
    });
    expect(claimed).toHaveLength(1);
    worker = startWorker(t);
    await receiver.waitForCount(1);
    const [delivery] = await waitUntilSettled(t, endpoint.id, 1);
    expect(delivery!.state).toBe('delivered');
  });
});
