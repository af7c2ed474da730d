/** Test helpers for campaign sends: an app relaying to a real SMTP sink, lists of many subscribers, and starting a send. */
import { expect } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { startSmtpSink, type SinkOptions, type SmtpSink } from '../../test/smtp-sink.ts';
import type { Config } from '../../config/schema.ts';
import { makeList, marketingClient } from '../marketing.test-support.ts';
import { waitFor } from '../../test/wait.ts';

/** An app whose mail goes to a STARTTLS SMTP sink, with one account and its marketing caller. */
export async function sinkApp(sinkOpts: Partial<SinkOptions> = {}, config: Partial<Config> = {}) {
  const sink: SmtpSink = await startSmtpSink({ tls: 'starttls', ...sinkOpts });
  const t: TestApp = await createTestApp({
    config: { transport: 'relay', relayUrl: sink.url, tlsVerify: false, ...config },
  });
  const acct: TestAccount = await t.createAccount();
  return { sink, t, acct, call: marketingClient(t, acct) };
}

/** A list of `n` subscribers `<prefix>-<i>@patients.example`. */
export async function listOfMany(
  call: ReturnType<typeof marketingClient>,
  name: string,
  prefix: string,
  n: number,
): Promise<string> {
  const list = await makeList(call, name);
  const subscribers = Array.from({ length: n }, (_, i) => ({
    email: `${prefix}-${i}@patients.example`,
    first_name: `P${i}`,
  }));
  const res = await call('POST', '/subscribers_bulk_create', { subscribers, subscription_list_id: list });
  expect(res.statusCode, res.body).toBe(200);
  return list;
}

/** Starts a send of a mailing to a list from `news@<domain>`; returns the send's id. */
export async function startSendOf(
  call: ReturnType<typeof marketingClient>,
  acct: TestAccount,
  mailing: string,
  list: string,
): Promise<string> {
  const res = await call('POST', '/campaign_mailing_sends', {
    campaign_mailing_id: mailing,
    campaign_mailing_send: { subscription_list_id: list, from_email: `news@${acct.domain}` },
  });
  expect(res.statusCode, res.body).toBe(200);
  return String(res.headers['sealpost-campaign-mailing-send-id']);
}

/** Waits until a send's state is `sent`. */
export async function waitUntilSent(call: ReturnType<typeof marketingClient>, sendId: string): Promise<void> {
  await waitFor(
    async () =>
      (await call('GET', `/campaign_mailing_sends/${sendId}`)).json().data.attributes.state === 'sent',
    15_000,
    50,
    'the send finishing',
  );
}
