/**
 * DKIM end to end: a domain that signs with RSA and Ed25519 has mail delivered through a real worker to a real SMTP
 * server on loopback carrying both signatures, each verified with the public key of the DNS record the domain publishes.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { accountDomains, type DkimSigning } from '../accounts/domains.service.ts';
import { createTestApp, type TestApp } from '../test/harness.ts';
import { startSmtpSink, type SmtpSink } from '../test/smtp-sink.ts';
import { verifyDkim } from '../test/dkim.ts';
import { sendMessage, startDeliveryWorker, waitUntilFinished } from './delivery.test-support.ts';
import type { Worker } from '../jobs/worker.ts';

let t: TestApp;
let sink: SmtpSink;
let worker: Worker;

beforeAll(async () => {
  t = await createTestApp({ config: { transport: 'relay', tlsVerify: false, deliveryTimeoutMs: 5000 } });
  sink = await startSmtpSink({ tls: 'starttls' });
  worker = startDeliveryWorker(t, { relayUrl: sink.url });
});
afterAll(async () => {
  await worker.stop(2000);
  await sink.close();
  await t.close();
});

/** The DKIM records an account's domains publish, by name. */
async function publishedKeys(customerId: number): Promise<Map<string, string>> {
  const domains = await accountDomains(t.ctx.database.db, customerId);
  return new Map(
    domains.flatMap((d) => d.dns_records.filter((r) => r.purpose === 'dkim').map((r) => [r.name, r.value])),
  );
}

/** Sends one message from a new account whose domain signs with `dkim`, and checks the signatures of the copy delivered. */
async function deliveredSignatures(dkim: DkimSigning | undefined, recipient: string) {
  const acct = await t.createAccount({ dkim });
  const id = await sendMessage(t, acct, { recipients: [recipient] });
  await waitUntilFinished(t, id);
  const mail = sink.received.find((m) => m.to.includes(recipient))!;
  const checked = verifyDkim(mail.raw, await publishedKeys(acct.account.customer_id));
  return checked.map((c) => [c.algorithm, c.domain === acct.domain, c.bodyHashOk, c.signatureOk]);
}

it('delivers mail of a domain signing with both keys with a valid RSA and a valid Ed25519 signature', async () => {
  expect(await deliveredSignatures('both', 'both@example.net')).toEqual([
    ['rsa-sha256', true, true, true],
    ['ed25519-sha256', true, true, true],
  ]);
});

it('signs mail of an Ed25519-only domain with one Ed25519 signature', async () => {
  expect(await deliveredSignatures('ed25519', 'ed@example.net')).toEqual([
    ['ed25519-sha256', true, true, true],
  ]);
});

it('keeps signing mail of a domain added without a choice with RSA alone', async () => {
  expect(await deliveredSignatures(undefined, 'rsa@example.net')).toEqual([['rsa-sha256', true, true, true]]);
});
