/**
 * Connections to next hops: the mx transport never holds more than its limit of connections to one mail host, and
 * each lane's transport has a relay pool of its own (no larger than SEALPOST_RELAY_CONNECTIONS), so a marketing connection that hangs does not hold up
 * transactional mail. Real SMTP servers on loopback count the connections; only DNS is replaced.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { startSmtpSink, type SmtpSink } from '../test/smtp-sink.ts';
import { createTransport, type SendRequest } from './transport.ts';
import type { MxResolver } from './mx.ts';
import {
  recipientRows,
  sendMessage,
  startDeliveryWorker,
  waitUntilFinished,
} from './delivery.test-support.ts';

const sinks: SmtpSink[] = [];
let t: TestApp;
let acct: TestAccount;

beforeAll(async () => {
  t = await createTestApp({ config: { tlsVerify: false, deliveryTimeoutMs: 5000 } });
  acct = await t.createAccount();
});
afterAll(async () => {
  await Promise.all(sinks.map((s) => s.close()));
  await t.close();
});

async function sink(opts: Parameters<typeof startSmtpSink>[0]): Promise<SmtpSink> {
  const s = await startSmtpSink(opts);
  sinks.push(s);
  return s;
}

/** Test DNS: every domain's mail host is mx.<domain>, at 127.0.0.1. */
const resolver: MxResolver = {
  resolveMx: async (domain) => [{ exchange: `mx.${domain}`, priority: 10 }],
  resolve4: async () => ['127.0.0.1'],
};

it('opens no more connections to one mail host at once than SEALPOST_MX_HOST_CONCURRENCY allows', async () => {
  const s = await sink({ tls: 'starttls', replyDelayMs: 150 });
  const worker = startDeliveryWorker(
    t,
    { transport: 'mx', mxPort: s.port, mxHostConcurrency: 2, deliveryConcurrency: 8 },
    { resolver },
  );
  try {
    const recipients = Array.from({ length: 8 }, (_, i) => `patient${i}@busy.test`);
    const id = await sendMessage(t, acct, { recipients });
    await waitUntilFinished(t, id, 30_000);
    expect((await recipientRows(t, id)).map((r) => r.status)).toEqual(recipients.map(() => 'delivered'));
    expect(s.received).toHaveLength(8);
    expect(s.peakConnections()).toBe(2);
  } finally {
    await worker.stop(2000);
  }
});

const request = (to: string): SendRequest => ({
  from: `desk@${acct.domain}`,
  to,
  raw: Buffer.from(`From: desk@${acct.domain}\r\nTo: ${to}\r\nSubject: hi\r\n\r\nhello\r\n`),
  requireTls: true,
  ref: { reference: 'm', recipientId: 1, customerId: acct.account.customer_id },
});

it('gives each lane its own relay pool, so a hanging marketing connection does not hold up transactional mail', async () => {
  // The first message the relay receives is never answered: it holds the connection it came on.
  const s = await sink({ tls: 'starttls', reply: (n) => (n === 1 ? 'stall' : { code: 250 }) });
  const config = { ...t.ctx.config, transport: 'relay' as const, relayUrl: s.url };
  const capture = { save: async () => undefined };
  const marketing = createTransport(config, { capture, laneConcurrency: 1 });
  const transactional = createTransport(config, { capture, laneConcurrency: 1 });
  try {
    const stuck = marketing.send(request('list@example.net'));
    await new Promise((r) => setTimeout(r, 300));
    const sent = await transactional.send(request('reset@example.net'));
    expect(sent).toMatchObject({ result: 'accepted', tls: true });
    expect(s.received.map((m) => m.to)).toEqual([['reset@example.net']]);
    await marketing.close();
    await stuck;
  } finally {
    await transactional.close();
  }
});

it('sizes a lane’s relay pool by that lane’s concurrency', async () => {
  const s = await sink({ tls: 'starttls', replyDelayMs: 150 });
  const config = { ...t.ctx.config, transport: 'relay' as const, relayUrl: s.url };
  const lane = createTransport(config, { capture: { save: async () => undefined }, laneConcurrency: 3 });
  try {
    const outcomes = await Promise.all(
      Array.from({ length: 9 }, (_, i) => lane.send(request(`p${i}@example.net`))),
    );
    expect(outcomes.every((o) => o.result === 'accepted')).toBe(true);
    expect(s.peakConnections()).toBe(3);
  } finally {
    await lane.close();
  }
});

it('holds a lane’s relay pool to SEALPOST_RELAY_CONNECTIONS when the lane runs more deliveries at once', async () => {
  const s = await sink({ tls: 'starttls', replyDelayMs: 150 });
  const config = { ...t.ctx.config, transport: 'relay' as const, relayUrl: s.url, relayConnections: 2 };
  const lane = createTransport(config, { capture: { save: async () => undefined }, laneConcurrency: 6 });
  try {
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, (_, i) => lane.send(request(`q${i}@example.net`))),
    );
    expect(outcomes.every((o) => o.result === 'accepted')).toBe(true);
    expect(s.received).toHaveLength(6);
    expect(s.peakConnections()).toBe(2);
  } finally {
    await lane.close();
  }
});
