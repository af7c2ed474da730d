/**
 * Marketing mail under the TLS policy: when the next hop offers no TLS, the subscriber gets a notification with no
 * content and a link to the secure page, which shows the email as it was rendered for them.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Worker } from '../../jobs/worker.ts';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { startSmtpSink, type SmtpSink } from '../../test/smtp-sink.ts';
import { startDeliveryWorker } from '../../delivery/delivery.test-support.ts';
import { makeList, makeSubscriber, marketingClient } from '../marketing.test-support.ts';
import { makeMailing } from '../mailings/mailings.test-support.ts';
import { startSendOf, waitUntilSent } from '../campaigns/sends.test-support.ts';

let t: TestApp;
let acct: TestAccount;
let sink: SmtpSink;
let worker: Worker;

beforeAll(async () => {
  sink = await startSmtpSink({ tls: 'none' });
  t = await createTestApp({ config: { transport: 'relay', relayUrl: sink.url } });
  acct = await t.createAccount();
  worker = startDeliveryWorker(t);
});
afterAll(async () => {
  await worker.stop(2000);
  await sink.close();
  await t.close();
});

it('sends a content-free notification over a clear-text hop and shows the email on the secure page', async () => {
  const call = marketingClient(t, acct);
  const list = await makeList(call, 'Results');
  await makeSubscriber(call, 'gail@patients.example', { first_name: 'Gail' }, list);
  const mailing = await makeMailing(call, 'Your screening reminder', {
    html_part: '<p>Dear {{first_name}}, your screening is due.</p>',
    text_part: 'Dear {{first_name}}, your screening is due.',
    from_email: `news@${acct.domain}`,
  });
  const sendId = await startSendOf(call, acct, mailing, list);
  await waitUntilSent(call, sendId);

  expect(sink.received).toHaveLength(1);
  const mail = await sink.received[0]!.parsed();
  expect(sink.received[0]!.secure).toBe(false);
  expect(`${mail.text} ${String(mail.html)}`).not.toContain('screening is due');
  const link = /https?:\/\/\S+\/s\/[A-Za-z0-9_-]+/.exec(String(mail.text))![0];
  const page = await t.app.inject({ method: 'GET', url: new URL(link).pathname });
  expect(page.statusCode).toBe(200);
  expect(page.body).toContain('Dear Gail, your screening is due.');
  expect(page.body).toContain('gail@patients.example');
  expect((await t.app.inject({ method: 'GET', url: `${new URL(link).pathname}x` })).statusCode).toBe(404);
});
