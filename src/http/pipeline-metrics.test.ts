/** The pipeline metrics on /metrics: queue depth and age from the database, and counters moving as a message is accepted and delivered. */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECT } from '../test/database.ts';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { sendMessage, startDeliveryWorker, waitUntilFinished } from '../delivery/delivery.test-support.ts';
import { waitFor } from '../test/wait.ts';
import { makeList, makeSubscriber, marketingClient } from '../marketing/marketing.test-support.ts';
import { makeMailing } from '../marketing/mailings/mailings.test-support.ts';
import { addSuppression } from '../accounts/suppressions.service.ts';

describe(`pipeline metrics (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let acct: TestAccount;

  beforeAll(async () => {
    t = await createTestApp();
    acct = await t.createAccount();
  });
  afterAll(async () => t?.close());

  async function metrics(): Promise<string> {
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    return res.body;
  }
  /** The value of one sample, 0 when absent. */
  function sample(text: string, name: string): number {
    const line = text.split('\n').find((l) => l.startsWith(name + ' '));
    return line ? Number(line.slice(name.length + 1)) : 0;
  }

  it('shows queue depth and counts a message accepted and delivered', async () => {
    const before = await metrics();
    // Queues that never had a row have their series too, at zero.
    for (const queue of ['webhooks', 'marketing.expand', 'forms.submitted'])
      expect(before, queue).toContain(`sealpost_queue_depth{queue="${queue}"} 0\n`);
    const id = await sendMessage(t, acct, {});
    const queued = await metrics();
    expect(sample(queued, 'sealpost_queue_depth{queue="email.transactional"}')).toBe(1);
    expect(
      sample(queued, 'sealpost_queue_oldest_age_seconds{queue="email.transactional"}'),
    ).toBeGreaterThanOrEqual(0);
    expect(queued).toContain('sealpost_campaign_sends_in_progress 0');
    const accepted = 'sealpost_messages_accepted_total{lane="transactional"}';
    expect(sample(queued, accepted) - sample(before, accepted)).toBe(1);

    const worker = startDeliveryWorker(t);
    try {
      await waitUntilFinished(t, id);
    } finally {
      await worker.stop(2000);
    }
    const after = await metrics();
    const delivered = 'sealpost_messages_delivered_total{lane="transactional"}';
    expect(sample(after, delivered) - sample(before, delivered)).toBe(1);
    const attempts = 'sealpost_delivery_attempt_duration_seconds_count{transport="capture"}';
    expect(sample(after, attempts) - sample(before, attempts)).toBe(1);
    expect(sample(after, 'sealpost_queue_depth{queue="email.transactional"}')).toBe(0);
    for (const name of [
      'sealpost_messages_deferred_total',
      'sealpost_messages_bounced_total',
      'sealpost_messages_suppressed_total',
      'sealpost_webhook_posts_total',
      'sealpost_form_submissions_total',
    ])
      expect(after).toContain(`# TYPE ${name} counter`);
  });

  /** Sends a campaign to a new list of `addresses` (those in `suppressed` on the suppression list) and waits until it is sent; returns the change of each sample. */
  async function campaignDelta(addresses: string[], suppressed: string[] = []) {
    const before = await metrics();
    const call = marketingClient(t, acct);
    const list = await makeList(call, `Metrics ${addresses[0]}`);
    for (const address of addresses) await makeSubscriber(call, address, {}, list);
    for (const address of suppressed) await addSuppression(t.ctx, acct.account.customer_id, address);
    const mailing = await makeMailing(call, `Hello ${addresses[0]}`, { from_email: `news@${acct.domain}` });
    const res = await call('POST', '/campaign_mailing_sends', {
      campaign_mailing_id: mailing,
      campaign_mailing_send: { subscription_list_id: list },
    });
    expect(res.statusCode, res.body).toBe(200);
    const sendId = String(res.headers['sealpost-campaign-mailing-send-id']);
    const worker = startDeliveryWorker(t);
    try {
      await waitFor(
        async () =>
          (await call('GET', `/campaign_mailing_sends/${sendId}`)).json().data.attributes.state === 'sent',
        15_000,
        50,
      );
    } finally {
      await worker.stop(2000);
    }
    const after = await metrics();
    return (name: string) => sample(after, name) - sample(before, name);
  }

  it('counts campaign deliveries on the marketing lane, not the transactional one', async () => {
    const delta = await campaignDelta(['kim@patients.example', 'lou@patients.example']);
    expect(delta('sealpost_messages_accepted_total{lane="marketing"}')).toBe(2);
    expect(delta('sealpost_messages_accepted_total{lane="transactional"}')).toBe(0);
    expect(delta('sealpost_messages_delivered_total{lane="marketing"}')).toBe(2);
    expect(delta('sealpost_messages_delivered_total{lane="transactional"}')).toBe(0);
    expect(delta('sealpost_delivery_attempt_duration_seconds_count{transport="capture"}')).toBe(2);
  });

  it('counts a campaign delivery skipped for a suppressed address on the marketing lane', async () => {
    const delta = await campaignDelta(
      ['kept@patients.example', 'listed@patients.example'],
      ['listed@patients.example'],
    );
    expect(delta('sealpost_messages_suppressed_total{lane="marketing"}')).toBe(1);
    expect(delta('sealpost_messages_suppressed_total{lane="transactional"}')).toBe(0);
    expect(delta('sealpost_messages_delivered_total{lane="marketing"}')).toBe(1);
  });

  it('has every metric the Grafana dashboard in docs/ queries', async () => {
    const dashboard = readFileSync(new URL('../../docs/grafana-dashboard.json', import.meta.url), 'utf8');
    const names = new Set((dashboard.match(/sealpost_[a-z_]+/g) ?? []).map((n) => n.replace(/_bucket$/, '')));
    const text = await metrics();
    expect(names.size).toBeGreaterThan(5);
    for (const name of names) expect(text, name).toContain(`# TYPE ${name} `);
  });
});
