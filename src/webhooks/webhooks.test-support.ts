/** Shared pieces of the webhook tests: a worker over the webhook queue, endpoints through the API, events appended the way features append them, and reading deliveries. */
import { createHmac } from 'node:crypto';
import type { Config } from '../config/schema.ts';
import type { Worker } from '../jobs/worker.ts';
import { startTestWorker } from '../test/worker.ts';
import { queueHandlers, type BackgroundOptions } from '../app/workers.ts';
import { appendEvent as appendEmailEvent } from './webhooks.outbox.ts';
import type { TestAccount, TestApp } from '../test/harness.ts';
import type { ReceivedHook } from '../test/webhook-receiver.ts';
import { waitFor } from '../test/wait.ts';
import { webhookQueues } from './webhooks.worker.ts';
import { sendMessage as sendThroughApi } from '../delivery/delivery.test-support.ts';
import type { WebhookEndpoint } from './webhooks.service.ts';

/** Configuration the webhook tests run under: loopback receivers allowed, short waits between attempts, no disabling. */
export const FAST: Partial<Config> = {
  webhookAllowPrivateTargets: true,
  webhookRetrySchedule: [60, 60, 60, 60, 60],
  webhookTimeoutMs: 2000,
  webhookDisableAfterFailures: 0,
};

/**
 * Starts a worker with configuration overrides: over the webhook queue only (events are appended by the test), or over
 * every queue (`all`, so messages are really delivered and their events made by delivery).
 */
export function startWorker(
  t: TestApp,
  overrides: Partial<Config> = {},
  opts: BackgroundOptions & { all?: boolean } = {},
): Worker {
  return startTestWorker(
    t,
    overrides,
    (ctx) => (opts.all ? queueHandlers(ctx, opts) : webhookQueues(ctx, opts)),
    20,
  );
}

/** Creates an endpoint through the API; returns it with its signing key. */
export async function addEndpoint(
  t: TestApp,
  acct: TestAccount,
  body: Record<string, unknown>,
): Promise<WebhookEndpoint & { signing_key: string }> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/email/webhook_endpoints',
    headers: { ...acct.auth, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
  if (res.statusCode !== 201) throw new Error(`endpoint creation failed: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** Sends a message through the API (left undelivered unless a worker runs every queue); returns its id and first recipient. */
export async function sendMessage(
  t: TestApp,
  acct: TestAccount,
  extra: Record<string, unknown> = {},
): Promise<{ messageId: string; recipientId: number }> {
  const messageId = await sendThroughApi(t, acct, {
    recipients: ['patient@example.net'],
    headers: { subject: 'Your lab results', from: `desk@${acct.domain}`, 'X-Clinic-Ref': 'A-17' },
    content: { 'text/plain': 'Ready to view.' },
    ...extra,
  });
  const r = await t.ctx.database.db
    .selectFrom('message_recipients')
    .select('id')
    .where('message_id', '=', messageId)
    .orderBy('id')
    .executeTakeFirstOrThrow();
  return { messageId, recipientId: r.id };
}

/** Appends an email event in its own transaction, as delivery and tracking do; returns its id. */
export function appendEvent(
  t: TestApp,
  acct: TestAccount,
  sent: { messageId: string; recipientId: number },
  event: 'delivered' | 'temporary_failure' | 'permanent_failure' | 'opened' | 'clicked',
): Promise<number> {
  return t.ctx.database.db.transaction().execute((trx) =>
    appendEmailEvent(trx, {
      customer_id: acct.account.customer_id,
      message_id: sent.messageId,
      recipient_id: sent.recipientId,
      event,
      data: JSON.stringify({ recipient: 'patient@example.net', status: event, response: '250 ok' }),
      created_at: Date.now(),
    }),
  );
}

/** Checks a request's signature the documented way: HMAC-SHA256 of `<event id>.<timestamp>.<body>`, one `v1=` per secret. */
export function signedWith(hook: ReceivedHook, secret: string): boolean {
  const id = String(hook.headers['sealpost-event-id']);
  const timestamp = String(hook.headers['sealpost-timestamp']);
  const expected = createHmac('sha256', secret).update(`${id}.${timestamp}.${hook.body}`).digest('hex');
  return String(hook.headers['sealpost-signature'])
    .split(',')
    .map((part) => part.trim())
    .includes(`v1=${expected}`);
}

/** The deliveries of an endpoint, oldest first. */
export function deliveriesOf(t: TestApp, endpointId: string) {
  return t.ctx.database.db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .orderBy('id')
    .execute();
}

/** The attempts to an endpoint, oldest first. */
export function attemptsTo(t: TestApp, endpointId: string) {
  return t.ctx.database.db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .orderBy('id')
    .execute();
}

/** Waits until every delivery of an endpoint is final and there are `count` of them. */
export function waitUntilSettled(t: TestApp, endpointId: string, count: number, timeoutMs = 10_000) {
  return waitFor(
    async () => {
      const rows = await deliveriesOf(t, endpointId);
      return rows.length >= count && rows.every((d) => d.state === 'delivered' || d.state === 'failed')
        ? rows
        : undefined;
    },
    timeoutMs,
    20,
    `${count} settled deliveries`,
  );
}
