/** An endpoint over time: disabled after a run of failures and re-enabled, replayed, rotated, refused at send time, and swept. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Worker } from '../jobs/worker.ts';
import { TEST_BY, createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../test/webhook-receiver.ts';
import { waitFor } from '../test/wait.ts';
import { createEndpoint } from './webhooks.service.ts';
import { sweepDeliveries } from './webhooks.worker.ts';
import { WEBHOOK_QUEUE, webhookJobKey } from './webhooks.outbox.ts';
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

let t: TestApp;
let worker: Worker | undefined;
let receiver: WebhookReceiver | undefined;

beforeAll(async () => {
  t = await createTestApp({ config: FAST });
});
afterEach(async () => {
  await worker?.stop(2000);
  worker = undefined;
  await receiver?.close();
  receiver = undefined;
});
afterAll(() => t.close());

const api = (acct: TestAccount, method: 'GET' | 'PATCH' | 'POST', url: string, body?: unknown) =>
  t.app.inject({
    method,
    url: `/v1/email/webhook_endpoints${url}`,
    headers: { ...acct.auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    payload: body === undefined ? undefined : JSON.stringify(body),
  });

describe('disabling', () => {
  it('disables an endpoint after the failure run, makes no new deliveries, and PATCH {active: true} re-enables it', async () => {
    let up = false;
    receiver = await startWebhookReceiver(() => ({ status: up ? 200 : 500 }));
    const acct = await t.createAccount();
    const endpoint = await addEndpoint(t, acct, {
      target_url: receiver.url,
      events: ['api_mail_log_delivered'],
    });
    for (let i = 0; i < 2; i++) await appendEvent(t, acct, await sendMessage(t, acct), 'delivered');
    worker = startWorker(t, {
      webhookDisableAfterFailures: 3,
      webhookDisableAfterHours: 0,
      webhookRetrySchedule: [30, 30, 30, 30],
    });

    const disabled = await waitFor(async () => {
      const res = await api(acct, 'GET', `/${endpoint.id}`);
      return res.json().disabled_at ? res.json() : undefined;
    }, 5000);
    // Attempts already in flight when the endpoint was disabled still count, so the run may be longer than 3.
    expect(disabled).toMatchObject({
      active: true,
      disabled_reason: expect.stringMatching(
        /^\d+ consecutive failed attempts since .*endpoint answered 500$/,
      ),
    });
    expect(disabled.failure_streak).toBeGreaterThanOrEqual(3);
    const settled = await waitUntilSettled(t, endpoint.id, 2);
    expect(settled.map((d) => d.state)).toEqual(['failed', 'failed']);
    expect(receiver.received.length).toBeGreaterThanOrEqual(3);

    const later = await sendMessage(t, acct);
    await appendEvent(t, acct, later, 'delivered');
    expect(await deliveriesOf(t, endpoint.id)).toHaveLength(2);

    up = true;
    const res = await api(acct, 'PATCH', `/${endpoint.id}`, { active: true });
    expect(res.json()).toMatchObject({
      active: true,
      disabled_at: null,
      disabled_reason: null,
      failure_streak: 0,
    });
    const id = await appendEvent(t, acct, await sendMessage(t, acct), 'delivered');
    await waitFor(() => receiver!.received.find((h) => h.json().payload.id === id), 5000);
  });

  it('ends deliveries of a switched-off endpoint without posting them', async () => {
    receiver = await startWebhookReceiver();
    const acct = await t.createAccount();
    const endpoint = await addEndpoint(t, acct, {
      target_url: receiver.url,
      events: ['api_mail_log_delivered'],
    });
    await appendEvent(t, acct, await sendMessage(t, acct), 'delivered');
    await api(acct, 'PATCH', `/${endpoint.id}`, { active: false });
    worker = startWorker(t);
    const [delivery] = await waitUntilSettled(t, endpoint.id, 1);
    expect(delivery).toMatchObject({ state: 'failed', attempts: 0, last_error: 'endpoint switched off' });
    expect(receiver.received).toEqual([]);
  });
});

describe('replay', () => {
  it('posts delivered events again under the same Sealpost-Event-Id, by time and by id', async () => {
    receiver = await startWebhookReceiver();
    const acct = await t.createAccount();
    const endpoint = await addEndpoint(t, acct, {
      target_url: receiver.url,
      events: ['api_mail_log_delivered', 'api_mail_log_opened'],
    });
    const before = new Date(Date.now() - 1000).toISOString();
    const sent = await sendMessage(t, acct);
    const first = await appendEvent(t, acct, sent, 'delivered');
    const second = await appendEvent(t, acct, sent, 'opened');
    await appendEvent(t, acct, sent, 'clicked');
    worker = startWorker(t);
    await receiver.waitForCount(2);
    await waitUntilSettled(t, endpoint.id, 2);

    const byTime = await api(acct, 'POST', `/${endpoint.id}/replay`, { since: before });
    expect(byTime.json()).toEqual({
      replayed: 2,
      already_pending: 0,
      last_event_id: second,
      truncated: false,
    });
    const hooks = await receiver.waitForCount(4);
    expect(hooks.slice(2).map((h) => h.json().payload.id)).toEqual([first, second]);
    expect(hooks[2]!.headers['sealpost-event-id']).toBe(hooks[0]!.headers['sealpost-event-id']);
    await waitUntilSettled(t, endpoint.id, 2);

    const byId = await api(acct, 'POST', `/${endpoint.id}/replay`, { event_ids: [second] });
    expect(byId.json()).toMatchObject({ replayed: 1 });
    const [, , , , fifth] = await receiver.waitForCount(5);
    expect(fifth!.json().payload.id).toBe(second);
  });

  it('posts events that happened before the endpoint existed', async () => {
    receiver = await startWebhookReceiver();
    const acct = await t.createAccount();
    const old = await appendEvent(t, acct, await sendMessage(t, acct), 'permanent_failure');
    const endpoint = await addEndpoint(t, acct, {
      target_url: receiver.url,
      events: ['api_mail_log_permanent_failure'],
    });
    const res = await api(acct, 'POST', `/${endpoint.id}/replay`, { event_ids: [old] });
    expect(res.json()).toMatchObject({ replayed: 1, already_pending: 0 });
    worker = startWorker(t);
    const [hook] = await receiver.waitForCount(1);
    expect(hook!.json()).toMatchObject({
      event_name: 'api_mail_log_permanent_failure',
      payload: { id: old },
    });
  });

  it('refuses to replay to a disabled endpoint', async () => {
    const acct = await t.createAccount();
    const endpoint = await addEndpoint(t, acct, {
      target_url: 'http://127.0.0.1:9/x',
      events: ['api_mail_log_delivered'],
    });
    await t.ctx.database.db
      .updateTable('webhook_endpoints')
      .set({ disabled_at: Date.now(), disabled_reason: 'test' })
      .where('id', '=', endpoint.id)
      .execute();
    const res = await api(acct, 'POST', `/${endpoint.id}/replay`, { since: '2020-01-01T00:00:00Z' });
    expect(res.statusCode).toBe(409);
    expect(res.json().error_code).toBe('webhook.not_active');
  });
});

describe('signing key rotation', () => {
  it('signs with both keys until the previous one is retired', async () => {
    receiver = await startWebhookReceiver();
    const acct = await t.createAccount();
    const endpoint = await addEndpoint(t, acct, {
      target_url: receiver.url,
      events: ['api_mail_log_delivered'],
      signing_key: 'first-secret-0123456789',
    });
    const rotated = await api(acct, 'PATCH', `/${endpoint.id}`, { signing_key: 'second-secret-0123456789' });
    expect(rotated.json()).toMatchObject({
      signing_key: 'second-secret-0123456789',
      previous_signing_key_active: true,
    });
    worker = startWorker(t);
    await appendEvent(t, acct, await sendMessage(t, acct), 'delivered');
    const [during] = await receiver.waitForCount(1);
    expect(String(during!.headers['sealpost-signature']).split(',')).toHaveLength(2);
    expect(signedWith(during!, 'first-secret-0123456789')).toBe(true);
    expect(signedWith(during!, 'second-secret-0123456789')).toBe(true);

    const retired = await api(acct, 'PATCH', `/${endpoint.id}`, { retire_previous_signing_key: true });
    expect(retired.json()).toMatchObject({ previous_signing_key_active: false });
    expect(retired.json().signing_key).toBeUndefined();
    await appendEvent(t, acct, await sendMessage(t, acct), 'delivered');
    const [, after] = await receiver.waitForCount(2);
    expect(String(after!.headers['sealpost-signature'])).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(signedWith(after!, 'second-secret-0123456789')).toBe(true);
    expect(signedWith(after!, 'first-secret-0123456789')).toBe(false);
  });
});

describe('URL safety at send time', () => {
  it('fails a delivery for good, without connecting, when the name now resolves to a private address', async () => {
    receiver = await startWebhookReceiver();
    const acct = await t.createAccount();
    const guarded = { ...t.ctx, config: { ...t.ctx.config, webhookAllowPrivateTargets: false } };
    const endpoint = await createEndpoint(
      guarded,
      acct.account.customer_id,
      { target_url: `http://hooks.clinic.test:${receiver.port}/hooks`, events: ['api_mail_log_delivered'] },
      TEST_BY,
      { lookup: async () => [{ address: '93.184.215.14', family: 4 }] },
    );
    await appendEvent(t, acct, await sendMessage(t, acct), 'delivered');
    worker = startWorker(
      t,
      { webhookAllowPrivateTargets: false },
      { webhookLookup: async () => [{ address: '127.0.0.1', family: 4 }] },
    );
    const [delivery] = await waitUntilSettled(t, endpoint.id, 1);
    expect(delivery).toMatchObject({ state: 'failed', attempts: 1 });
    const [attempt] = await attemptsTo(t, endpoint.id);
    expect(attempt).toMatchObject({
      status_code: null,
      error: expect.stringMatching(/refused to connect to hooks\.clinic\.test at 127\.0\.0\.1/),
    });
    expect(receiver.received).toEqual([]);
  });

  it('refuses a literal private address at send time too', async () => {
    const acct = await t.createAccount();
    const endpoint = await addEndpoint(t, acct, {
      target_url: 'http://10.1.2.3/hooks',
      events: ['api_mail_log_delivered'],
    });
    await appendEvent(t, acct, await sendMessage(t, acct), 'delivered');
    worker = startWorker(t, { webhookAllowPrivateTargets: false });
    const [delivery] = await waitUntilSettled(t, endpoint.id, 1);
    expect(delivery).toMatchObject({
      state: 'failed',
      last_error: expect.stringMatching(/10\.1\.2\.3: not a public address/),
    });
  });
});

describe('sweep', () => {
  it('finishes a pending delivery whose work row ended without an outcome and releases the next one', async () => {
    const acct = await t.createAccount();
    const endpoint = await addEndpoint(t, acct, {
      target_url: 'http://127.0.0.1:9/x',
      events: ['api_mail_log_delivered', 'api_mail_log_opened'],
    });
    const sent = await sendMessage(t, acct);
    await appendEvent(t, acct, sent, 'delivered');
    await appendEvent(t, acct, sent, 'opened');
    const [head] = await deliveriesOf(t, endpoint.id);
    const db = t.ctx.database.db;
    await db
      .updateTable('jobs')
      .set({ state: 'failed', finished_at: Date.now() })
      .where('unique_key', '=', webhookJobKey(head!.id, 1))
      .execute();
    expect(await sweepDeliveries(t.ctx, Date.now() + 3_600_000)).toEqual({ orphaned: 1, released: 0 });
    const rows = await deliveriesOf(t, endpoint.id);
    expect(rows.map((d) => d.state)).toEqual(['failed', 'pending']);
    const next = await db
      .selectFrom('jobs')
      .select('state')
      .where('queue', '=', WEBHOOK_QUEUE)
      .where('unique_key', '=', webhookJobKey(rows[1]!.id, 1))
      .executeTakeFirst();
    expect(next?.state).toBe('queued');
  });
});
