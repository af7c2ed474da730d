/** Bounces of campaign mail: a 5xx answer is a hard bounce, a 4xx a soft bounce retried on the schedule. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Worker } from '../../jobs/worker.ts';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { startSmtpSink, type SmtpSink } from '../../test/smtp-sink.ts';
import { startDeliveryWorker } from '../../delivery/delivery.test-support.ts';
import { waitFor } from '../../test/wait.ts';
import { keyOf, makeList, makeSubscriber, marketingClient } from '../marketing.test-support.ts';
import { makeMailing } from '../mailings/mailings.test-support.ts';
import { expandSlice } from '../campaigns/expand.ts';

let t: TestApp;
let acct: TestAccount;
let sink: SmtpSink;
let worker: Worker;

beforeAll(async () => {
  const replies = new Map([
    [1, { code: 550, message: '5.1.1 no such mailbox' }],
    [2, { code: 451, message: '4.3.0 try again later' }],
  ]);
  sink = await startSmtpSink({ tls: 'starttls', reply: (n) => replies.get(n) ?? { code: 250 } });
  t = await createTestApp({
    config: { transport: 'relay', relayUrl: sink.url, tlsVerify: false, deliveryRetrySchedule: [200] },
  });
  acct = await t.createAccount();
  worker = startDeliveryWorker(t, { marketingConcurrency: 1 });
});
afterAll(async () => {
  await worker.stop(2000);
  await sink.close();
  await t.close();
});

it('counts a hard bounce and a soft bounce that is delivered on retry', async () => {
  const call = marketingClient(t, acct);
  const list = await makeList(call, 'Bounces');
  const ids = [];
  for (const who of ['a', 'b', 'c'])
    ids.push(await makeSubscriber(call, `${who}@patients.example`, {}, list));
  const mailing = await makeMailing(call, 'Bounce check', {
    text_part: 'Hello',
    from_email: `news@${acct.domain}`,
  });
  const res = await call('POST', '/campaign_mailing_sends', {
    campaign_mailing_id: mailing,
    campaign_mailing_send: { subscription_list_id: list },
  });
  const sendId = String(res.headers['sealpost-campaign-mailing-send-id']);
  await waitFor(
    async () =>
      (await call('GET', `/campaign_mailing_sends/${sendId}`)).json().data.attributes.state === 'sent',
    15_000,
    50,
  );

  const totals = (
    await call('GET', `/analytics/campaign_mailing_send_totals?campaign_mailing_send_id=${sendId}`)
  ).json().data;
  expect(totals).toMatchObject({ delivered: 2, bounced: 1, hard_bounced: 1, soft_bounced: 1 });
  const rows = await t.ctx.database.db
    .selectFrom('marketing_deliveries')
    .select(['subscriber_id', 'status', 'attempts', 'last_response'])
    .where('send_id', '=', await keyOf(t, 'campaign_mailing_sends', sendId))
    .orderBy('id')
    .execute();
  expect(rows.map((r) => r.status).sort()).toEqual(['delivered', 'delivered', 'failed']);
  expect(rows.find((r) => r.status === 'failed')!.last_response).toContain('550');
  expect(rows.find((r) => r.attempts === 2)).toMatchObject({ status: 'delivered' });
  const stats = await Promise.all(
    ids.map(
      async (id) =>
        (await call('GET', `/subscribers/${id}?with_stats=true`)).json().data.attributes.statistics,
    ),
  );
  expect(stats.reduce((n, s) => n + s.hard_bounced, 0)).toBe(1);
  expect(stats.reduce((n, s) => n + s.soft_bounced, 0)).toBe(1);
  expect(stats.reduce((n, s) => n + s.delivered, 0)).toBe(2);
  expect(stats.reduce((n, s) => n + s.deliveries, 0)).toBe(3);
});

it('fails a delivery whose work row runs out of attempts on an error, and still finishes the send', async () => {
  const call = marketingClient(t, acct);
  const list = await makeList(call, 'Broken');
  await makeSubscriber(call, 'broken@patients.example', {}, list);
  const mailing = await makeMailing(call, 'Broken content', {
    text_part: 'Hello',
    from_email: `news@${acct.domain}`,
  });
  await worker.stop(2000);
  const res = await call('POST', '/campaign_mailing_sends', {
    campaign_mailing_id: mailing,
    campaign_mailing_send: { subscription_list_id: list },
  });
  const sendId = await keyOf(
    t,
    'campaign_mailing_sends',
    String(res.headers['sealpost-campaign-mailing-send-id']),
  );
  // The stored content is damaged after expansion, so every attempt throws before anything is sent.
  await expandSlice(t.ctx, sendId);
  await t.ctx.database.db
    .updateTable('campaign_mailing_sends')
    .set({ content: '{not json' })
    .where('id', '=', sendId)
    .execute();
  worker = startDeliveryWorker(t, { marketingConcurrency: 1 });
  await waitFor(
    async () =>
      (await call('GET', `/campaign_mailing_sends/${sendId}`)).json().data.attributes.state === 'sent',
    15_000,
    50,
  );
  const [row] = await t.ctx.database.db
    .selectFrom('marketing_deliveries')
    .select(['status', 'last_response'])
    .where('send_id', '=', sendId)
    .execute();
  expect(row!.status).toBe('failed');
  expect(row!.last_response).toMatch(/JSON/);
  expect(sink.received.some((m) => m.to.includes('broken@patients.example'))).toBe(false);
});
