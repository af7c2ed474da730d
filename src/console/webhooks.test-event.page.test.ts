/**
 * "Send test event" on the webhooks page and `POST /webhook_endpoints/<id>/test`, against a real HTTP receiver on
 * loopback that checks each request's signature the way docs/webhooks.md tells receivers to: a signed `webhook_test`
 * event goes out once, its attempt (status, latency, the receiver's answer) is shown with the others, and the test is
 * audited; a failing receiver is reported and not retried; a viewer is refused by the server.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../test/webhook-receiver.ts';
import { FAST } from '../webhooks/webhooks.test-support.ts';
import { createTestUser, signInClient, type ConsoleClient } from './console.test-support.ts';

let t: TestApp;
let a: TestAccount;
let receiver: WebhookReceiver;
let owner: ConsoleClient;
let viewer: ConsoleClient;
/** The signing secret the receiver checks with (set once the endpoint exists). */
let secret = '';

/** The receiver's check, as docs/webhooks.md gives it to receivers. */
function verifySealpost(signingKey: string, headers: IncomingHttpHeaders, rawBody: string): boolean {
  const id = headers['sealpost-event-id'] as string | undefined;
  const timestamp = headers['sealpost-timestamp'] as string | undefined;
  const signature = (headers['sealpost-signature'] as string | undefined) ?? '';
  if (!id || !timestamp || Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const expected = createHmac('sha256', signingKey).update(`${id}.${timestamp}.`).update(rawBody).digest();
  return signature
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.startsWith('v1='))
    .some((part) => {
      const given = Buffer.from(part.slice(3), 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

beforeAll(async () => {
  t = await createTestApp({ config: FAST });
  a = await t.createAccount();
  receiver = await startWebhookReceiver((hook) =>
    verifySealpost(secret, hook.headers, hook.body)
      ? { status: 200, body: 'signature ok' }
      : { status: 401, body: 'bad signature' },
  );
  owner = await signInClient(t.app, (await createTestUser(t, a.account.customer_id, 'owner')).email);
  viewer = await signInClient(t.app, (await createTestUser(t, a.account.customer_id, 'viewer')).email);
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

let endpointId = '';

describe('send test event', () => {
  it('posts a signed webhook_test event once and shows its attempt with the answer', async () => {
    const res = await owner.post('/console/webhooks', {
      _csrf: owner.csrf,
      target_url: receiver.url,
      events: 'api_mail_log_delivered',
    });
    const shown = await owner.get(res.headers.location as string);
    secret = /id="new-secret" class="mono">([^<]+)</.exec(shown.body)![1]!;
    endpointId = /href="\/console\/webhooks\/(we_\w+)"/.exec(shown.body)![1]!;
    expect((await owner.get(`/console/webhooks/${endpointId}`)).body).toContain('Send test event');

    const sent = await owner.post(`/console/webhooks/${endpointId}/test`, { _csrf: owner.csrf });
    expect(sent.statusCode).toBe(303);
    expect(receiver.received).toHaveLength(1);
    const hook = receiver.received[0]!;
    expect(verifySealpost(secret, hook.headers, hook.body)).toBe(true);
    const body = hook.json();
    expect(body.event_name).toBe('webhook_test');
    expect(body.payload).toMatchObject({ subject: null, from: null, to: null, custom_headers: {} });
    expect(body.payload.source_tracking_id).toMatch(/^[0-9a-f-]{36}$/);

    const page = (await owner.get(`/console/webhooks/${endpointId}`)).body;
    expect(page).toMatch(/Test event \d+ delivered: the endpoint answered 200 in \d+ ms\./);
    expect(page).toContain('webhook_test');
    expect(page).toMatch(
      /<td data-label="Status">200<\/td>\s*<td data-label="Latency">\d+ ms<\/td>\s*<td data-label="Response"><code class="mono">signature ok<\/code>/,
    );
    const audit = await t.ctx.database.db
      .selectFrom('audit_log')
      .select(['action', 'actor_type'])
      .where('target', '=', `webhook:${endpointId}`)
      .where('action', '=', 'webhook.test')
      .execute();
    expect(audit).toEqual([{ action: 'webhook.test', actor_type: 'user' }]);
  });

  it('through the API: answers with the attempt; a refused signature is a failed attempt, not retried', async () => {
    secret = 'a-secret-the-endpoint-does-not-have';
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/email/webhook_endpoints/${endpointId}/test`,
      headers: a.auth,
    });
    expect(res.statusCode).toBe(200);
    const attempt = res.json() as Record<string, unknown>;
    expect(attempt).toMatchObject({
      event_name: 'webhook_test',
      attempt: 1,
      status_code: 401,
      response_excerpt: 'bad signature',
      delivery_state: 'failed',
    });
    expect(receiver.received).toHaveLength(2);
    const queued = await t.ctx.database.db
      .selectFrom('jobs')
      .select('id')
      .where('queue', '=', 'webhooks')
      .execute();
    expect(queued).toEqual([]);
    const audit = await t.ctx.database.db
      .selectFrom('audit_log')
      .select(['actor_type', 'actor_id'])
      .where('target', '=', `webhook:${endpointId}`)
      .where('action', '=', 'webhook.test')
      .where('actor_type', '=', 'key')
      .execute();
    expect(audit).toEqual([{ actor_type: 'key', actor_id: a.keyId }]);

    const failed = await owner.post(`/console/webhooks/${endpointId}/test`, { _csrf: owner.csrf });
    expect(failed.statusCode).toBe(303);
    expect((await owner.get(`/console/webhooks/${endpointId}`)).body).toMatch(
      /Test event \d+ failed: the endpoint answered 401 after \d+ ms\. It is not retried\./,
    );
  });

  it('is refused for a viewer and for an endpoint that is switched off, and nothing is sent', async () => {
    const before = receiver.received.length;
    const refused = await viewer.post(`/console/webhooks/${endpointId}/test`, { _csrf: viewer.csrf });
    expect(refused.statusCode).toBe(403);
    await owner.post(`/console/webhooks/${endpointId}/active`, { _csrf: owner.csrf, active: '0' });
    const off = await t.app.inject({
      method: 'POST',
      url: `/v1/email/webhook_endpoints/${endpointId}/test`,
      headers: a.auth,
    });
    expect(off.statusCode).toBe(409);
    expect(off.json().error_code).toBe('webhook.not_active');
    expect(receiver.received.length).toBe(before);
  });
});
