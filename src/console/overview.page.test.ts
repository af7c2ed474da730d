/** The overview over HTTP: today's and the week's figures from real sends, the queue, failing endpoints, and the chart's assets served from the installation. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import type { Worker } from '../jobs/worker.ts';
import { sendMessage, startDeliveryWorker, waitUntilFinished } from '../delivery/delivery.test-support.ts';
import { createTestUser, signInClient, type ConsoleClient } from './console.test-support.ts';
import { message, postJson, recipientsOf } from '../email/email.test-support.ts';
import { tokenUrls } from '../mail/tokens.ts';

let t: TestApp;
let a: TestAccount;
let viewer: ConsoleClient;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.createAccount();
  viewer = await signInClient(t.app, (await createTestUser(t, a.account.customer_id, 'viewer')).email);
});
afterAll(async () => t?.close());

const figure = (body: string, section: string, label: string) => {
  const part = body.slice(body.indexOf(`>${section}</h2>`));
  return Number(new RegExp(`<dt>${label}</dt>\\s*<dd>([\\d,]+)</dd>`).exec(part)![1]!.replace(/,/g, ''));
};

describe('overview', () => {
  it('counts accepted and delivered today and this week, and shows the queue while mail waits', async () => {
    const waiting = await sendMessage(t, a, { recipients: ['x@example.net', 'y@example.net'] });
    let page = await viewer.get('/console');
    expect(page.statusCode).toBe(200);
    expect(figure(page.body, 'Today', 'Accepted')).toBe(1);
    expect(page.body).toMatch(/2 recipients\s+waiting; the oldest unfinished message was accepted/);
    const worker: Worker = startDeliveryWorker(t);
    await waitUntilFinished(t, waiting);
    await sendMessage(t, a, {}).then((id) => waitUntilFinished(t, id));
    await worker.stop();
    page = await viewer.get('/console');
    expect(figure(page.body, 'Today', 'Accepted')).toBe(2);
    expect(figure(page.body, 'Today', 'Captured, not sent')).toBe(3);
    expect(figure(page.body, 'Last 7 days', 'Captured, not sent')).toBe(3);
    expect(figure(page.body, 'Today', 'Bounced')).toBe(0);
    expect(page.body).toMatch(/0 recipients\s+waiting\./);
    const other = await t.createAccount();
    await sendMessage(t, other, {});
    expect(figure((await viewer.get('/console')).body, 'Today', 'Accepted')).toBe(2);
  });

  it('names a failing webhook endpoint', async () => {
    const now = Date.now();
    await t.ctx.database.db
      .insertInto('webhook_endpoints')
      .values({
        id: 'ep-failing',
        customer_id: a.account.customer_id,
        target_url: 'https://hooks.clinic.example/in',
        events: 'api_mail_log_delivered',
        signing_secret: 'x',
        previous_signing_secret: null,
        active: 1,
        disabled_at: null,
        disabled_reason: null,
        failure_streak: 4,
        streak_started_at: now - 60_000,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const page = await viewer.get('/console');
    expect(page.body).toContain('https://hooks.clinic.example/in');
    expect(page.body).toMatch(/failing<\/strong>: 4 failed\s+attempts in a row/);
  });

  it('counts opens and clicks from the tracking links, and deferrals and bounces from the delivery events', async () => {
    const b = await t.createAccount();
    const reader = await signInClient(
      t.app,
      (await createTestUser(t, b.account.customer_id, 'viewer')).email,
    );
    const res = await postJson(t, '/v1/email/messages', b.auth, {
      data: {
        message: message(`news@${b.domain}`, {
          recipients: ['a@example.net', 'b@example.net'],
          content: { 'text/html': '<p><a href="https://example.org/results">results</a></p>' },
        }),
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const id = res.json().sourceTrackingId as string;
    const [first, second] = (await recipientsOf(t, id)).map((r) => r.id) as [number, number];
    const path = (url: string) => new URL(url).pathname;
    const key = t.ctx.keys.tracking;
    await t.app.inject({
      method: 'GET',
      url: path(tokenUrls.transactional.open(t.ctx.publicUrl, key, first)),
    });
    await t.app.inject({
      method: 'GET',
      url: path(tokenUrls.transactional.open(t.ctx.publicUrl, key, second)),
    });
    await t.app.inject({
      method: 'GET',
      url: path(tokenUrls.transactional.click(t.ctx.publicUrl, key, second, 0)),
    });
    const now = Date.now();
    await t.ctx.database.db
      .insertInto('email_events')
      .values(
        [
          [first, 'temporary_failure'],
          [first, 'temporary_failure'],
          [second, 'permanent_failure'],
        ].map(([recipient, event]) => ({
          customer_id: b.account.customer_id,
          message_id: id,
          recipient_id: recipient as number,
          event: event as string,
          data: '{}',
          created_at: now,
        })),
      )
      .execute();
    const body = (await reader.get('/console')).body;
    for (const section of ['Today', 'Last 7 days'])
      expect(
        Object.fromEntries(
          ['Accepted', 'Opened', 'Clicked', 'Deferred', 'Bounced'].map((l) => [l, figure(body, section, l)]),
        ),
        section,
      ).toEqual({ Accepted: 1, Opened: 2, Clicked: 1, Deferred: 2, Bounced: 1 });
  });

  it('draws its chart with uPlot served from the installation, with the numbers as a table', async () => {
    const page = await viewer.get('/console');
    expect(page.body).toMatch(/<figure class="chart" data-chart="/);
    expect(page.body.match(/<tr>\s*<th scope="row"/g)).toHaveLength(7);
    for (const name of ['uplot.js', 'uplot.css', 'charts.js']) {
      const url = new RegExp(`(/console/assets/${name.replace('.', '\\.')}\\?v=\\w+)`).exec(page.body)![1]!;
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, name).toBe(200);
    }
    const lib = await t.app.inject({ method: 'GET', url: '/console/assets/uplot.js' });
    expect(lib.body).toContain('uPlot');
  });
});
