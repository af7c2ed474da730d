/** The webhooks page over HTTP with a real receiver: add (secret once), attempts, rotate, edit events, disable, replay, roles refused. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import type { Worker } from '../jobs/worker.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../test/webhook-receiver.ts';
import {
  FAST,
  appendEvent,
  sendMessage,
  signedWith,
  startWorker,
  waitUntilSettled,
} from '../webhooks/webhooks.test-support.ts';
import { createTestUser, signInClient, type ConsoleClient } from './console.test-support.ts';

let t: TestApp;
let a: TestAccount;
let receiver: WebhookReceiver;
let worker: Worker;
let owner: ConsoleClient;
let viewer: ConsoleClient;
let endpointId: string;
let secret: string;

beforeAll(async () => {
  t = await createTestApp({ config: FAST });
  a = await t.createAccount();
  receiver = await startWebhookReceiver(() => ({ status: 202, body: 'thanks from the clinic' }));
  worker = startWorker(t);
  owner = await signInClient(t.app, (await createTestUser(t, a.account.customer_id, 'owner')).email);
  viewer = await signInClient(t.app, (await createTestUser(t, a.account.customer_id, 'viewer')).email);
});
afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  await t?.close();
});

const secretOf = (body: string) => /id="new-secret" class="mono">([^<]+)</.exec(body)![1]!;

describe('webhooks page', () => {
  it('adds an endpoint and shows its secret once; deliveries are signed with it and listed as attempts', async () => {
    const res = await owner.post('/console/webhooks', {
      _csrf: owner.csrf,
      target_url: receiver.url,
      events: 'api_mail_log_delivered',
    });
    expect(res.statusCode).toBe(303);
    endpointId = /^\/console\/webhooks\/(we_\w+)\/secret\//.exec(res.headers.location as string)![1]!;
    secret = secretOf((await owner.get(res.headers.location as string)).body);
    const page = await owner.get(`/console/webhooks/${endpointId}`);
    expect(page.body).not.toContain(secret);
    await appendEvent(t, a, await sendMessage(t, a), 'delivered');
    const [hook] = await receiver.waitForCount(1);
    expect(signedWith(hook!, secret)).toBe(true);
    await waitUntilSettled(t, endpointId, 1);
    const after = await viewer.get(`/console/webhooks/${endpointId}`);
    expect(after.body).toContain('thanks from the clinic');
    expect(after.body).toMatch(/<td data-label="Status">202<\/td>\s*<td data-label="Latency">\d+ ms<\/td>/);
  });

  it('rotates the secret (new one shown once, both sign until the old is retired) and saves events', async () => {
    const res = await owner.post(`/console/webhooks/${endpointId}/rotate`, { _csrf: owner.csrf });
    expect(res.statusCode).toBe(303);
    const fresh = secretOf((await owner.get(res.headers.location as string)).body);
    expect(fresh).not.toBe(secret);
    expect((await owner.get(`/console/webhooks/${endpointId}`)).body).toContain('Retire previous secret');
    await owner.post(`/console/webhooks/${endpointId}/retire`, { _csrf: owner.csrf });
    const saved = await owner.post(`/console/webhooks/${endpointId}/events`, {
      _csrf: owner.csrf,
      events: 'api_mail_log_opened',
    });
    expect(saved.statusCode).toBe(303);
    const row = await t.ctx.database.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', endpointId)
      .executeTakeFirstOrThrow();
    expect(row.events).toBe('api_mail_log_opened');
    expect(row.previous_signing_secret).toBeNull();
  });

  it('replays an event by id and disables the endpoint', async () => {
    const event = await t.ctx.database.db
      .selectFrom('email_events')
      .select('id')
      .where('customer_id', '=', a.account.customer_id)
      .executeTakeFirstOrThrow();
    await owner.post(`/console/webhooks/${endpointId}/events`, {
      _csrf: owner.csrf,
      events: 'api_mail_log_delivered',
    });
    await owner.post(`/console/webhooks/${endpointId}/replay`, {
      _csrf: owner.csrf,
      event_ids: String(event.id),
    });
    expect((await owner.get(`/console/webhooks/${endpointId}`)).body).toMatch(/1 event put back in line/i);
    await receiver.waitForCount(2);
    await owner.post(`/console/webhooks/${endpointId}/active`, { _csrf: owner.csrf, active: '0' });
    const row = await t.ctx.database.db
      .selectFrom('webhook_endpoints')
      .select('active')
      .where('id', '=', endpointId)
      .executeTakeFirstOrThrow();
    expect(row.active).toBe(0);
    const actions = await t.ctx.database.db
      .selectFrom('audit_log')
      .select('action')
      .where('target', '=', `webhook:${endpointId}`)
      .execute();
    expect(actions.map((r) => r.action)).toEqual([
      'webhook.create',
      'webhook.update',
      'webhook.update',
      'webhook.update',
      'webhook.update',
      'webhook.replay',
      'webhook.update',
    ]);
  });

  it('refuses bad input with a clear error and a viewer on the server', async () => {
    await owner.post('/console/webhooks', {
      _csrf: owner.csrf,
      target_url: 'not a url',
      events: 'api_mail_log_delivered',
    });
    expect((await owner.get('/console/webhooks')).body).toMatch(/flash-error/);
    expect(await t.ctx.database.db.selectFrom('webhook_endpoints').select('id').execute()).toHaveLength(1);
    expect(
      (
        await viewer.post('/console/webhooks', {
          _csrf: viewer.csrf,
          target_url: receiver.url,
          events: 'api_mail_log_delivered',
        })
      ).statusCode,
    ).toBe(403);
    for (const p of ['rotate', 'retire', 'events', 'active', 'replay'])
      expect(
        (await viewer.post(`/console/webhooks/${endpointId}/${p}`, { _csrf: viewer.csrf, active: '1' }))
          .statusCode,
        p,
      ).toBe(403);
    const page = await viewer.get(`/console/webhooks/${endpointId}`);
    expect(page.body).not.toContain('Rotate signing secret');
  });
});
