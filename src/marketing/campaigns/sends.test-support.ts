/** Test helpers for campaign sends: an app relaying to a real SMTP sink, lists of many subscribers, and starting a send. */
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { startSmtpSink, type SinkOptions, type SmtpSink } from '../../test/smtp-sink.ts';
import type { Config } from '../../config/schema.ts';
import type { Worker } from '../../jobs/worker.ts';
import { startDeliveryWorker } from '../../delivery/delivery.test-support.ts';
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

/** A file's sink app (see `sinkApp`), filled in place before its tests so they may name it at the top level. */
export interface SinkTestBed {
  sink: SmtpSink;
  t: TestApp;
  acct: TestAccount;
  call: ReturnType<typeof marketingClient>;
  /** Starts a delivery worker that is stopped after the test. */
  startWorker(overrides?: Partial<Config>): Worker;
}

/**
 * Registers hooks that build a sink app before the file's tests and close it after them; with `fileWorker`, a delivery
 * worker runs for the whole file.
 */
export function sinkTestBed(
  opts: { sink?: Partial<SinkOptions>; config?: Partial<Config>; fileWorker?: boolean } = {},
): SinkTestBed {
  const sink = {} as SmtpSink;
  const t = {} as TestApp;
  const acct = {} as TestAccount;
  let client: ReturnType<typeof marketingClient> | undefined;
  let fileWorker: Worker | undefined;
  let worker: Worker | undefined;
  beforeAll(async () => {
    const made = await sinkApp(opts.sink, opts.config);
    Object.assign(sink, made.sink);
    Object.assign(t, made.t);
    Object.assign(acct, made.acct);
    client = made.call;
    if (opts.fileWorker) fileWorker = startDeliveryWorker(t);
  });
  afterEach(async () => {
    await worker?.stop(2000);
    worker = undefined;
  });
  afterAll(async () => {
    await fileWorker?.stop(2000);
    await sink.close();
    await t.close();
  });
  return {
    sink,
    t,
    acct,
    call: (method, path, payload) => client!(method, path, payload),
    startWorker: (overrides = {}) => (worker = startDeliveryWorker(t, overrides)),
  };
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
