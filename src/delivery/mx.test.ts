/**
 * Direct delivery through the mx transport. DNS is the one thing replaced: a resolver points test domains at loopback
 * addresses, and mxPort points at a real SMTP server there.
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { Worker } from '../jobs/worker.ts';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { startSmtpSink, type SmtpSink } from '../test/smtp-sink.ts';
import type { MxResolver } from './mx.ts';
import {
  eventsOf,
  receiptOf,
  recipientRows,
  sendMessage,
  startDeliveryWorker,
  waitUntilFinished,
} from './delivery.test-support.ts';

let t: TestApp;
let acct: TestAccount;
let sink: SmtpSink;
let worker: Worker | undefined;
const lookups: string[] = [];

const dnsError = (code: string) => Object.assign(new Error(code), { code });

/** Test DNS: each domain's MX records and each host's addresses. 127.0.0.2 has nothing listening on the sink's port. */
const resolver: MxResolver = {
  async resolveMx(domain) {
    lookups.push(`MX ${domain}`);
    const zone: Record<string, { exchange: string; priority: number }[]> = {
      'clinic.test': [{ exchange: 'mx1.clinic.test', priority: 10 }],
      'two-hosts.test': [
        { exchange: 'backup.two-hosts.test', priority: 20 },
        { exchange: 'down.two-hosts.test', priority: 5 },
      ],
      'null-mx.test': [{ exchange: '', priority: 0 }],
    };
    if (zone[domain]) return zone[domain];
    if (domain === 'no-mx.test') throw dnsError('ENODATA');
    throw dnsError('ENOTFOUND');
  },
  async resolve4(host) {
    lookups.push(`A ${host}`);
    const zone: Record<string, string[]> = {
      'mx1.clinic.test': ['127.0.0.1'],
      'no-mx.test': ['127.0.0.1'],
      'down.two-hosts.test': ['127.0.0.2'],
      'backup.two-hosts.test': ['127.0.0.1'],
    };
    if (zone[host]) return zone[host];
    throw dnsError('ENOTFOUND');
  },
};

beforeAll(async () => {
  sink = await startSmtpSink({ tls: 'starttls' });
  t = await createTestApp({
    config: { transport: 'mx', mxPort: sink.port, tlsVerify: false, deliveryTimeoutMs: 5000 },
  });
  acct = await t.createAccount();
});
afterEach(async () => {
  await worker?.stop(2000);
  worker = undefined;
});
afterAll(async () => {
  await sink.close();
  await t.close();
});

async function deliverTo(recipient: string): Promise<string> {
  worker = startDeliveryWorker(t, {}, { resolver });
  const id = await sendMessage(t, acct, { recipients: [recipient] });
  await waitUntilFinished(t, id);
  return id;
}

it("delivers over STARTTLS to the MX host the recipient's domain names", async () => {
  const before = sink.received.length;
  const id = await deliverTo('patient@clinic.test');
  expect((await receiptOf(t, acct, id)).data.message.message_deliveries[0]!.status.deliveryStatus).toBe(
    'delivered',
  );
  expect(sink.received.slice(before).map((m) => [m.to, m.secure])).toEqual([[['patient@clinic.test'], true]]);
  expect((await recipientRows(t, id))[0]).toMatchObject({ via: 'mx', tls: 1 });
  expect(lookups).toEqual(expect.arrayContaining(['MX clinic.test', 'A mx1.clinic.test']));
});

it('reuses one TLS session for messages that follow each other to the same mail host', async () => {
  worker = startDeliveryWorker(t, {}, { resolver });
  const before = { connections: sink.connections(), received: sink.received.length };
  for (const patient of ['a', 'b', 'c']) {
    const id = await sendMessage(t, acct, { recipients: [`${patient}@clinic.test`] });
    await waitUntilFinished(t, id);
    expect((await recipientRows(t, id))[0]).toMatchObject({ status: 'delivered', via: 'mx', tls: 1 });
  }
  expect(sink.received.slice(before.received).map((m) => [m.to, m.secure])).toEqual([
    [['a@clinic.test'], true],
    [['b@clinic.test'], true],
    [['c@clinic.test'], true],
  ]);
  expect(sink.connections() - before.connections).toBe(1);
});

it('reuses one session for messages that may go in clear, over TLS when the host offers it', async () => {
  worker = startDeliveryWorker(t, {}, { resolver });
  const before = sink.connections();
  for (const patient of ['d', 'e']) {
    const id = await sendMessage(t, acct, { recipients: [`${patient}@clinic.test`], allowNonTLS: true });
    await waitUntilFinished(t, id);
    expect((await recipientRows(t, id))[0]).toMatchObject({ status: 'delivered', tls: 1 });
  }
  expect(sink.connections() - before).toBe(1);
  // That session's certificate was not checked (refusing it would only have led to clear text), so a message that
  // requires TLS does not take it: it opens a session of its own, under the required policy.
  const id = await sendMessage(t, acct, { recipients: ['f@clinic.test'] });
  await waitUntilFinished(t, id);
  expect((await recipientRows(t, id))[0]).toMatchObject({ status: 'delivered', tls: 1 });
  expect(sink.connections() - before).toBe(2);
});

it("sends a secure notification instead when the MX host's certificate cannot be verified", async () => {
  worker = startDeliveryWorker(t, { tlsVerify: true }, { resolver });
  const before = sink.received.length;
  const id = await sendMessage(t, acct, { recipients: ['patient@clinic.test'] });
  await waitUntilFinished(t, id);
  expect((await receiptOf(t, acct, id)).data.message.message_deliveries[0]!.status.deliveryStatus).toBe(
    'delivered via secure portal',
  );
  const [mail] = sink.received.slice(before);
  expect((await mail!.parsed()).text).not.toContain('potassium');
});

it('falls back to the address of the domain itself when it has no MX record', async () => {
  const before = sink.received.length;
  const id = await deliverTo('patient@no-mx.test');
  expect((await recipientRows(t, id))[0]).toMatchObject({ status: 'delivered', via: 'mx' });
  expect(sink.received.slice(before).map((m) => m.to)).toEqual([['patient@no-mx.test']]);
  expect(lookups).toContain('A no-mx.test');
});

it('tries the next MX host by priority when the first cannot be reached', async () => {
  const id = await deliverTo('patient@two-hosts.test');
  expect((await recipientRows(t, id))[0]).toMatchObject({ status: 'delivered', attempts: 1 });
  const order = lookups.filter((l) => l.startsWith('A ') && l.includes('two-hosts'));
  expect(order).toEqual(['A down.two-hosts.test', 'A backup.two-hosts.test']);
});

it('fails permanently for a domain that publishes a null MX', async () => {
  const id = await deliverTo('patient@null-mx.test');
  expect((await receiptOf(t, acct, id)).data.message.message_deliveries[0]!.status.deliveryStatus).toBe(
    'hard bounced',
  );
  expect((await eventsOf(t, id)).map((e) => e.event)).toEqual(['permanent_failure']);
});

it('fails permanently for a domain that does not exist', async () => {
  const id = await deliverTo('patient@nowhere.test');
  expect((await recipientRows(t, id))[0]).toMatchObject({
    status: 'failed',
    delivery_status: 'hard bounced',
  });
  expect((await recipientRows(t, id))[0]!.last_response).toContain('does not exist');
});
