/** Transactional sends of an account that opted in skip globally unsubscribed subscribers, over HTTP and over SMTP. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import nodemailer from 'nodemailer';
import type { Worker } from '../jobs/worker.ts';
import { startSmtp, type RunningSmtp } from '../smtp/smtp.server.ts';
import { testCertificate } from '../test/smtp-sink.ts';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import {
  receiptOf,
  recipientRows,
  sendMessage,
  startDeliveryWorker,
  waitUntilFinished,
} from '../delivery/delivery.test-support.ts';
import { makeList, makeSubscriber, marketingClient } from '../marketing/marketing.test-support.ts';

describe('transactional suppression', () => {
  let t: TestApp;
  let smtp: RunningSmtp;
  let worker: Worker | undefined;

  beforeAll(async () => {
    t = await createTestApp({ config: { smtpHost: '127.0.0.1', smtpRateLimitPerMinute: 1000 } });
    smtp = await startSmtp(t.ctx, [{ name: 'submission', port: 0, secure: false }], testCertificate());
  });
  afterEach(async () => {
    await worker?.stop(2000);
    worker = undefined;
  });
  afterAll(async () => {
    await smtp?.stop();
    await t?.close();
  });

  /** An account with subscriber gone@example.org unsubscribed globally, and the switch set as asked. */
  async function accountWithUnsubscribed(optIn: boolean): Promise<TestAccount> {
    const a = await t.createAccount();
    const call = marketingClient(t, a);
    const id = await makeSubscriber(call, 'Gone@Example.org');
    expect((await call('POST', `/subscribers/${id}/unsubscribe`)).statusCode).toBe(200);
    await makeSubscriber(call, 'stays@example.org');
    expect(
      (await call('PATCH', '/settings', { settings: { suppress_transactional: optIn } })).statusCode,
    ).toBe(200);
    return a;
  }

  /** An SMTP client submitting as account `a` on the submission port. */
  const submissionClient = (a: TestAccount) =>
    nodemailer.createTransport({
      host: '127.0.0.1',
      port: smtp.ports.submission,
      requireTLS: true,
      auth: { user: 'apikey', pass: a.key },
      tls: { rejectUnauthorized: false },
    });

  /** The envelope recipients the capture transport kept for a message. */
  async function capturedTo(a: TestAccount, id: string): Promise<string[]> {
    const res = await t.app.inject({
      method: 'GET',
      url: `/v1/email/captured_messages?sourceTrackingId=${id}`,
      headers: a.auth,
    });
    return (res.json().captured as { envelope_to: string }[]).map((c) => c.envelope_to).sort();
  }

  async function deliveredStatuses(a: TestAccount, id: string): Promise<Record<string, string>> {
    await waitUntilFinished(t, id);
    const r = await receiptOf(t, a, id);
    return Object.fromEntries(
      r.data.message.message_deliveries.map((d) => [d.recipient, d.status.deliveryStatus]),
    );
  }

  it('does not deliver an HTTP send to the unsubscribed recipient, delivers the others, and shows "suppressed" in the receipt', async () => {
    const a = await accountWithUnsubscribed(true);
    worker = startDeliveryWorker(t);
    const id = await sendMessage(t, a, {
      recipients: ['gone@example.org', 'stays@example.org', 'stranger@example.net'],
    });
    expect(await deliveredStatuses(a, id)).toEqual({
      'gone@example.org': 'suppressed',
      'stays@example.org': 'delivered',
      'stranger@example.net': 'delivered',
    });
    expect(await capturedTo(a, id)).toEqual(['stays@example.org', 'stranger@example.net']);
  });

  it('answers 422 with the sourceTrackingId when every recipient is suppressed, and finishes the message at once', async () => {
    const a = await accountWithUnsubscribed(true);
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/email/messages',
      headers: { ...a.auth, 'content-type': 'application/json' },
      payload: {
        data: {
          message: {
            recipients: ['GONE@example.org'],
            cc: ['gone@EXAMPLE.org'],
            headers: { subject: 'Results', from: `desk@${a.domain}` },
            content: { 'text/plain': 'Ready.' },
          },
        },
      },
    });
    expect(res.statusCode, res.body).toBe(422);
    const body = res.json();
    expect(body).toMatchObject({
      error_code: 'email.recipients_suppressed',
      message: expect.stringMatching(/^Not sent: every recipient is suppressed/),
      errors: [{ code: 422 }],
    });
    const id = body.sourceTrackingId as string;
    const rows = await recipientRows(t, id);
    expect(rows.map((r) => [r.status, r.delivery_status])).toEqual([['failed', 'suppressed']]);
    const jobs = await t.ctx.database.db.selectFrom('jobs').select('payload').execute();
    expect(jobs.filter((j) => JSON.parse(j.payload).recipientId === rows[0]!.id)).toEqual([]);
    const m = await t.ctx.database.db
      .selectFrom('messages')
      .select(['pending_count', 'finished_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(m.pending_count).toBe(0);
    expect(m.finished_at).not.toBeNull();
    expect((await receiptOf(t, a, id)).data.message.message_deliveries[0]!.status).toMatchObject({
      deliveryStatus: 'suppressed',
      reason: 'not sent: the address unsubscribed from all mail of this account',
    });
  });

  it('delivers to the unsubscribed recipient when the account did not opt in', async () => {
    const a = await accountWithUnsubscribed(false);
    worker = startDeliveryWorker(t);
    const id = await sendMessage(t, a, { recipients: ['gone@example.org'] });
    expect(await deliveredStatuses(a, id)).toEqual({ 'gone@example.org': 'delivered' });
    expect(await capturedTo(a, id)).toEqual(['gone@example.org']);
  });

  it('delivers to a subscriber who unsubscribed from one list only', async () => {
    const a = await t.createAccount();
    const call = marketingClient(t, a);
    const list = await makeList(call, 'Newsletter');
    const sid = await makeSubscriber(call, 'reader@example.org', {}, list);
    expect(
      (await call('POST', `/subscribers/${sid}/unsubscribe`, { subscription_list_id: list })).statusCode,
    ).toBe(200);
    await call('PATCH', '/settings', { settings: { suppress_transactional: true } });
    worker = startDeliveryWorker(t);
    const id = await sendMessage(t, a, { recipients: ['reader@example.org'] });
    expect(await deliveredStatuses(a, id)).toEqual({ 'reader@example.org': 'delivered' });
    expect(await capturedTo(a, id)).toEqual(['reader@example.org']);
  });

  it('does not deliver an SMTP submission to the unsubscribed recipient and still answers 250', async () => {
    const a = await accountWithUnsubscribed(true);
    worker = startDeliveryWorker(t);
    const info = await submissionClient(a).sendMail({
      from: `desk@${a.domain}`,
      to: 'gone@example.org, stays@example.org',
      subject: 'Results',
      text: 'Ready.',
    });
    expect(info.response).toMatch(/^250 /);
    const id = /sourceTrackingId ([0-9a-f-]{36})/.exec(info.response)![1]!;
    expect(await deliveredStatuses(a, id)).toEqual({
      'gone@example.org': 'suppressed',
      'stays@example.org': 'delivered',
    });
    expect(await capturedTo(a, id)).toEqual(['stays@example.org']);
  });

  it('refuses an SMTP message whose every recipient is suppressed with 550 5.7.1', async () => {
    const a = await accountWithUnsubscribed(true);
    const sent = submissionClient(a).sendMail({
      from: `desk@${a.domain}`,
      to: 'gone@example.org',
      subject: 'Results',
      text: 'Ready.',
    });
    await expect(sent).rejects.toMatchObject({
      responseCode: 550,
      response: expect.stringMatching(/^550 5\.7\.1 Not sent: every recipient is suppressed/),
    });
  });

  it('delivers again once the account turns the switch off', async () => {
    const a = await accountWithUnsubscribed(true);
    await marketingClient(t, a)('PATCH', '/settings', { settings: { suppress_transactional: false } });
    worker = startDeliveryWorker(t);
    const id = await sendMessage(t, a, { recipients: ['gone@example.org'] });
    expect(await deliveredStatuses(a, id)).toEqual({ 'gone@example.org': 'delivered' });
  });
});
