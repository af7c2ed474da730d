/**
 * Delivery through the relay transport, end to end: a message sent through the HTTP API is delivered by a real worker
 * to a real SMTP server on loopback, and the receipt, the recipient row and the events tell what happened.
 */
import { setSuppressionList } from '../accounts/suppressions.service.ts';
import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Worker } from '../jobs/worker.ts';
import { queueHandlers } from '../app/workers.ts';
import { TEST_BY, createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { startSmtpSink, type SmtpSink } from '../test/smtp-sink.ts';
import { waitFor } from '../test/wait.ts';
import { countingSettles, startTestWorker, testFinish } from '../test/worker.ts';
import {
  eventsOf,
  receiptOf,
  recipientRows,
  sendMessage,
  startDeliveryWorker,
  waitUntilFinished,
} from './delivery.test-support.ts';

const PUBLIC_URL = 'https://mail.sealpost.test';
const CONTENT = 'Your potassium is 4.1 mmol/L.';
const SUBJECT = 'Lab results ready';

let t: TestApp;
let acct: TestAccount;
let worker: Worker | undefined;
const sinks: SmtpSink[] = [];

beforeAll(async () => {
  t = await createTestApp({
    config: {
      transport: 'relay',
      tlsVerify: false,
      deliveryRetrySchedule: [200],
      deliveryTimeoutMs: 5000,
      publicUrl: PUBLIC_URL,
    },
  });
  acct = await t.createAccount();
  // Each case looks at attempts to the same recipient; a hard bounce in one must not suppress it in the next.
  await setSuppressionList(t.ctx, acct.account.customer_id, false, TEST_BY);
});
afterEach(async () => {
  await worker?.stop(2000);
  worker = undefined;
});
afterAll(async () => {
  await Promise.all(sinks.map((s) => s.close()));
  await t.close();
});

async function sink(opts: Parameters<typeof startSmtpSink>[0] = {}): Promise<SmtpSink> {
  const s = await startSmtpSink(opts);
  sinks.push(s);
  return s;
}

/** Sends through the API to a worker relaying to `s`, and waits until the message is finished. */
async function sendVia(
  s: SmtpSink,
  message: Record<string, unknown> = {},
  data: Record<string, unknown> = {},
): Promise<string> {
  worker = startDeliveryWorker(t, { relayUrl: s.url });
  const id = await sendMessage(t, acct, message, data);
  await waitUntilFinished(t, id);
  return id;
}

function statusOf(receipt: Awaited<ReturnType<typeof receiptOf>>): string[] {
  return receipt.data.message.message_deliveries.map((d) => d.status.deliveryStatus);
}

describe('TLS to the relay', () => {
  it('delivers over STARTTLS and the receipt says delivered', async () => {
    const s = await sink({ tls: 'starttls' });
    const id = await sendVia(s);
    expect(statusOf(await receiptOf(t, acct, id))).toEqual(['delivered']);
    expect(s.received).toHaveLength(1);
    expect(s.received[0]!.secure).toBe(true);
    expect((await s.received[0]!.parsed()).text).toContain(CONTENT);
    const [row] = await recipientRows(t, id);
    expect(row).toMatchObject({ status: 'delivered', via: 'relay', tls: 1, attempts: 1 });
    expect(row!.last_response).toMatch(/^250 .*sink-1/);
  });

  it('authenticates and delivers over implicit TLS to an smtps relay', async () => {
    const s = await sink({ tls: 'implicit', auth: { user: 'relay-user', pass: 'p@ss word' } });
    const id = await sendVia(s);
    expect(statusOf(await receiptOf(t, acct, id))).toEqual(['delivered']);
    expect(s.received.map((m) => m.secure)).toEqual([true]);
  });

  it('sends a notification without the content when the relay offers no TLS', async () => {
    const s = await sink({ tls: 'none' });
    const id = await sendVia(s);
    expect(statusOf(await receiptOf(t, acct, id))).toEqual(['delivered via secure portal']);
    const mail = await s.received[0]!.parsed();
    const body = `${mail.subject}\n${mail.text}\n${mail.html}`;
    expect(body).not.toContain(CONTENT);
    expect(body).not.toContain(SUBJECT);
    expect(mail.text).toContain(`clinic@${acct.domain}`);
    const token = /\/s\/([A-Za-z0-9_-]{43})\b/.exec(mail.text ?? '')![1]!;
    expect(mail.text).toContain(`${PUBLIC_URL}/s/${token}`);
    const [row] = await recipientRows(t, id);
    expect(row).toMatchObject({
      via: 'relay+secure',
      tls: 0,
      secure_token_hash: createHash('sha256').update(token).digest('hex'),
    });
    expect(Number(row!.secure_expires_at)).toBeGreaterThan(Date.now() + 700 * 3_600_000);
  });

  it("sends a notification when the relay's certificate cannot be verified", async () => {
    const s = await sink({ tls: 'starttls' });
    worker = startDeliveryWorker(t, { relayUrl: s.url, tlsVerify: true });
    const id = await sendMessage(t, acct, {});
    await waitUntilFinished(t, id);
    expect(statusOf(await receiptOf(t, acct, id))).toEqual(['delivered via secure portal']);
    expect((await s.received[0]!.parsed()).text).not.toContain(CONTENT);
  });

  it('sends the real content over plain SMTP when the message allows non-TLS', async () => {
    const s = await sink({ tls: 'none' });
    const id = await sendVia(s, { allowNonTLS: true });
    expect(statusOf(await receiptOf(t, acct, id))).toEqual(['delivered']);
    expect(s.received[0]!.secure).toBe(false);
    expect((await s.received[0]!.parsed()).text).toContain(CONTENT);
    expect((await recipientRows(t, id))[0]).toMatchObject({ via: 'relay', tls: 0, secure_token_hash: null });
  });

  it('sends a notification even over TLS when the sender forces secure notification', async () => {
    const s = await sink({ tls: 'starttls' });
    const id = await sendVia(s, { forceSecureNotification: true });
    expect(statusOf(await receiptOf(t, acct, id))).toEqual(['delivered via secure portal']);
    const mail = await s.received[0]!.parsed();
    expect(s.received[0]!.secure).toBe(true);
    expect(`${mail.subject}\n${mail.text}\n${mail.html}`).not.toContain(CONTENT);
    expect(mail.text).toContain(`${PUBLIC_URL}/s/`);
  });
});

describe('outcomes', () => {
  it('delivers after a retry when the relay first answers 4xx', async () => {
    const s = await sink({
      reply: (n) => (n === 1 ? { code: 451, message: 'greylisted, try again later' } : { code: 250 }),
    });
    const id = await sendVia(s);
    expect(statusOf(await receiptOf(t, acct, id))).toEqual(['delivered']);
    expect((await eventsOf(t, id)).map((e) => e.event)).toEqual(['temporary_failure', 'delivered']);
    expect((await recipientRows(t, id))[0]).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  it('hard-bounces at once with a permanent failure event when the relay answers 5xx', async () => {
    const s = await sink({ reply: () => ({ code: 550, message: 'mailbox unavailable' }) });
    const id = await sendVia(s);
    expect(statusOf(await receiptOf(t, acct, id))).toEqual(['hard bounced']);
    const events = await eventsOf(t, id);
    expect(events.map((e) => e.event)).toEqual(['permanent_failure']);
    expect(events[0]!.data).toMatchObject({ recipient: 'rcpt@example.net', status: 'hard bounced' });
    expect(events[0]!.data.response).toMatch(/^550 .*mailbox unavailable/);
    expect(s.dataCount()).toBe(1);
  });

  it('hard-bounces once the retry schedule is exhausted when the relay keeps answering 4xx', async () => {
    const s = await sink({ reply: () => ({ code: 421, message: 'too busy' }) });
    const id = await sendVia(s);
    expect(statusOf(await receiptOf(t, acct, id))).toEqual(['hard bounced']);
    expect((await eventsOf(t, id)).map((e) => e.event)).toEqual(['temporary_failure', 'permanent_failure']);
    expect(s.dataCount()).toBe(2);
    // The worker settles the work row after the outcome it recorded is committed.
    const lastJob = () =>
      t.ctx.database.db
        .selectFrom('jobs')
        .select(['state', 'attempts'])
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
    const job = await waitFor(
      async () => ((await lastJob()).state === 'running' ? undefined : lastJob()),
      5_000,
      10,
      'the work row settling',
    );
    expect(job).toEqual({ state: 'failed', attempts: 2 });
  });

  it('sends nothing and records nothing when a delivery row runs again after its recipient was settled', async () => {
    const s = await sink();
    const id = await sendVia(s);
    const [row] = await recipientRows(t, id);
    const queue = queueHandlers({ ...t.ctx, config: { ...t.ctx.config, relayUrl: s.url } })[
      'email.transactional'
    ]!;
    const job = await t.ctx.database.db
      .selectFrom('jobs')
      .selectAll()
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    const finishing = testFinish(job.id);
    await queue.handler(
      { ...job, attempts: 2, data: { recipientId: row!.id } },
      async () => undefined,
      finishing.finish,
    );
    expect(finishing.used()).toBe(false);
    expect(s.dataCount()).toBe(1);
    expect((await eventsOf(t, id)).map((e) => e.event)).toEqual(['delivered']);
    expect((await recipientRows(t, id))[0]).toEqual(row);
  });
});

describe('work rows', () => {
  it("ends a delivered recipient's work row in the commit that records the outcome, with no write of its own", async () => {
    const s = await sink();
    const watched = countingSettles(t.ctx.database);
    worker = startTestWorker(t, { relayUrl: s.url }, (ctx) => queueHandlers(ctx), 25, watched.database);
    const id = await sendMessage(t, acct, {});
    await waitUntilFinished(t, id);
    const [row] = await recipientRows(t, id);
    expect(row).toMatchObject({ status: 'delivered' });
    const job = await t.ctx.database.db
      .selectFrom('jobs')
      .select(['state', 'payload'])
      .where('queue', '=', 'email.transactional')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(job).toEqual({ state: 'done', payload: JSON.stringify({ recipientId: row!.id }) });
    await worker.stop(2000);
    worker = undefined;
    expect(watched.settles()).toBe(0);
  });
});

describe('what the recipient receives', () => {
  it('rewrites links to click URLs and appends the open pixel in the delivered HTML', async () => {
    const s = await sink();
    const html =
      '<html><body><p>See <a href="https://portal.example/results?id=7&amp;x=1">results</a></p></body></html>';
    await sendVia(s, { content: { 'text/plain': CONTENT, 'text/html': html } });
    const delivered = (await s.received[0]!.parsed()).html as string;
    expect(delivered).not.toContain('portal.example');
    expect(delivered).toMatch(new RegExp(`<a href="${PUBLIC_URL}/t/c/[^"]+">results</a>`));
    expect(delivered).toMatch(
      new RegExp(`<img src="${PUBLIC_URL}/t/o/[^"]+\\.gif" width="1" height="1" alt=""></body>`),
    );
  });

  it('never shows a bcc recipient in the headers', async () => {
    const s = await sink();
    await sendVia(s, { recipients: ['seen@example.net'], bcc: ['hidden@example.org'] });
    expect(s.received.map((m) => m.to).sort()).toEqual([['hidden@example.org'], ['seen@example.net']]);
    for (const m of s.received) {
      const headers = m.raw.toString('latin1').split('\r\n\r\n')[0]!;
      expect(headers).not.toContain('hidden@example.org');
      expect((await m.parsed()).to).toMatchObject({ text: 'seen@example.net' });
    }
  });

  it('delivers attachments intact', async () => {
    const s = await sink();
    const pdf = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 37) % 256));
    await sendVia(s, {
      attachments: [
        { fileName: 'results.pdf', contentType: 'application/pdf', content: pdf.toString('base64') },
      ],
    });
    const [attachment] = (await s.received[0]!.parsed()).attachments;
    expect(attachment).toMatchObject({ filename: 'results.pdf', contentType: 'application/pdf' });
    expect(Buffer.compare(attachment!.content, pdf)).toBe(0);
  });
});
