/**
 * Bounces after the conversation, transactional mail: each delivery leaves with its own return path on the bounce
 * domain; a delivery status notification or feedback report sent to it over SMTP on port 25 (a real client, real
 * RFC 3464 and RFC 5965 messages) changes the receipt, pushes the webhook event and fills the suppression list, and
 * mail to a forged return path or to any other address without AUTH is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECT } from '../test/database.ts';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../test/webhook-receiver.ts';
import {
  arfMessage,
  dsnMessage,
  sendReport,
  startReportListener,
  suppressionOf,
  type DsnSpec,
} from '../test/reports.ts';
import { waitFor } from '../test/wait.ts';
import type { Worker } from '../jobs/worker.ts';
import { addEndpoint, FAST, startWorker } from '../webhooks/webhooks.test-support.ts';
import {
  eventsOf,
  receiptOf,
  recipientRows,
  sendMessage,
  waitUntilFinished,
} from '../delivery/delivery.test-support.ts';
import type { RunningSmtp } from './smtp.server.ts';
import { messageTimeline } from '../email/message-log.service.ts';

const BOUNCE_DOMAIN = 'bounces.sealpost.test';

/** The envelope sender the captured copy of a one-recipient message left with. */
async function envelopeSenderOf(t: TestApp, id: string): Promise<string> {
  const captured = await t.ctx.database.db
    .selectFrom('captured_messages')
    .select('envelope_from')
    .where('message_id', '=', id)
    .executeTakeFirstOrThrow();
  return captured.envelope_from;
}

describe(`bounces after delivery, transactional (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let acct: TestAccount;
  let smtp: RunningSmtp;
  let hooks: WebhookReceiver;
  let worker: Worker;

  beforeAll(async () => {
    t = await createTestApp({ config: { ...FAST, smtpHost: '127.0.0.1', bounceDomain: BOUNCE_DOMAIN } });
    acct = await t.createAccount();
    hooks = await startWebhookReceiver();
    await addEndpoint(t, acct, {
      target_url: hooks.url,
      events: [
        'api_mail_log_delivered',
        'api_mail_log_temporary_failure',
        'api_mail_log_permanent_failure',
        'api_mail_log_complained',
        'api_mail_log_suppressed',
      ],
    });
    worker = startWorker(t, {}, { all: true });
    smtp = await startReportListener(t);
  });
  afterAll(async () => {
    await smtp?.stop();
    await worker?.stop(2000);
    await hooks?.close();
    await t?.close();
  });

  /** Sends one message to `address` (captured), waits until it is delivered; returns its id and return path. */
  async function delivered(address: string): Promise<{ id: string; returnPath: string }> {
    const id = await sendMessage(t, acct, { recipients: [address] });
    await waitUntilFinished(t, id);
    return { id, returnPath: await envelopeSenderOf(t, id) };
  }

  /** Sends a DSN to a return path, as the receiving server would. */
  const bounce = (returnPath: string, spec: Omit<DsnSpec, 'to'>) =>
    sendReport(smtp.ports.port25!, [returnPath], dsnMessage({ to: returnPath, ...spec }));

  const hooksFor = (id: string) =>
    hooks.received
      .map((h) => h.json())
      .filter((b) => JSON.stringify(b.payload).includes(id))
      .map((b) => b.event_name);

  const statusOf = async (id: string) =>
    (await receiptOf(t, acct, id)).data.message.message_deliveries[0]!.status.deliveryStatus;

  it('sends each delivery with its own return path on the bounce domain', async () => {
    const a = await delivered('one@patients.example');
    const b = await delivered('two@patients.example');
    const shape = new RegExp(`^b-t[0-9a-z]+-[0-9a-f]{24}@${BOUNCE_DOMAIN.replace(/\./g, '\\.')}$`);
    expect(a.returnPath).toMatch(shape);
    expect(b.returnPath).toMatch(shape);
    expect(a.returnPath).not.toBe(b.returnPath);
  });

  it('turns a 5.1.1 DSN into a hard bounce, a permanent_failure webhook and a suppression', async () => {
    const { id, returnPath } = await delivered('gone@patients.example');
    expect(await statusOf(id)).toBe('delivered');
    const reply = await bounce(returnPath, {
      recipient: 'gone@patients.example',
      action: 'failed',
      status: '5.1.1',
      diagnostic: '550 5.1.1 <gone@patients.example>: Recipient address rejected: User unknown',
    });
    expect(reply).toMatch(/^250 /);
    expect(await statusOf(id)).toBe('hard bounced');
    const [row] = await recipientRows(t, id);
    expect(row).toMatchObject({ status: 'failed', delivered_at: null });
    expect(row!.last_response).toBe(
      '550 5.1.1 <gone@patients.example>: Recipient address rejected: User unknown',
    );
    await waitFor(async () => hooksFor(id).length === 2, 10_000, 20, 'two webhooks');
    expect(hooksFor(id)).toEqual(['api_mail_log_delivered', 'api_mail_log_permanent_failure']);
    expect(await suppressionOf(t, acct, 'gone@patients.example')).toMatchObject({
      reason: 'hard_bounce',
      sourceTrackingId: id,
      detail: expect.stringContaining('User unknown'),
    });

    // The same DSN again changes nothing and pushes nothing.
    await bounce(returnPath, {
      recipient: 'gone@patients.example',
      action: 'failed',
      status: '5.1.1',
      diagnostic: '550 5.1.1 no such user',
    });
    expect((await eventsOf(t, id)).map((e) => e.event)).toEqual(['delivered', 'permanent_failure']);
  });

  it('turns a 4.x.x DSN into a soft bounce and a temporary_failure webhook, without suppressing', async () => {
    const { id, returnPath } = await delivered('full@patients.example');
    await bounce(returnPath, {
      recipient: 'full@patients.example',
      action: 'delayed',
      status: '4.2.2',
      diagnostic: '452 4.2.2 Mailbox full',
    });
    expect(await statusOf(id)).toBe('soft bounced');
    // A delay is temporary: the recipient is not failed, and the report's text is kept.
    const [row] = await recipientRows(t, id);
    expect(row).toMatchObject({ last_response: '452 4.2.2 Mailbox full' });
    expect(row!.status).not.toBe('failed');
    await waitFor(async () => hooksFor(id).length === 2, 10_000, 20, 'two webhooks');
    expect(hooksFor(id)).toEqual(['api_mail_log_delivered', 'api_mail_log_temporary_failure']);
    expect(await suppressionOf(t, acct, 'full@patients.example')).toBeNull();
  });

  it('lists the address of a complaint (ARF) and pushes a complained event', async () => {
    const { id, returnPath } = await delivered('annoyed@patients.example');
    const reply = await sendReport(
      smtp.ports.port25!,
      [returnPath],
      arfMessage({ to: returnPath, recipient: 'annoyed@patients.example' }),
    );
    expect(reply).toMatch(/^250 /);
    expect(await suppressionOf(t, acct, 'annoyed@patients.example')).toMatchObject({
      reason: 'complaint',
      detail: 'feedback report: abuse (SomeGenerator/1.0)',
      sourceTrackingId: id,
    });
    expect((await eventsOf(t, id)).map((e) => e.event)).toEqual(['delivered', 'complained']);
    const timeline = await messageTimeline(t.ctx, acct.account.customer_id, id);
    expect(timeline.recipients[0]!.steps.at(-1)).toMatchObject({
      what: 'complained',
      detail: 'complained — feedback report: abuse (SomeGenerator/1.0)',
    });
    expect(await statusOf(id)).toBe('delivered');
    await waitFor(async () => hooksFor(id).length === 2, 10_000, 20, 'two webhooks');
    expect(hooksFor(id)).toEqual(['api_mail_log_delivered', 'api_mail_log_complained']);
  });

  it('does not attempt a later send to a complained address, and pushes a suppressed event with the reason in the receipt', async () => {
    const again = await sendMessage(t, acct, {
      recipients: ['annoyed@patients.example', 'calm@patients.example'],
    });
    await waitUntilFinished(t, again);
    const entries = (await receiptOf(t, acct, again)).data.message.message_deliveries;
    expect(entries.map((e) => [e.recipient, e.status.deliveryStatus])).toEqual([
      ['annoyed@patients.example', 'suppressed'],
      ['calm@patients.example', 'delivered'],
    ]);
    expect(entries[0]!.status).toMatchObject({ reason: expect.stringContaining('complaint') });
    await waitFor(async () => hooksFor(again).length === 2, 10_000, 20, 'two webhooks');
    expect(hooksFor(again).sort()).toEqual(['api_mail_log_delivered', 'api_mail_log_suppressed']);
    const suppressed = hooks.received
      .map((h) => h.json())
      .find((b) => b.event_name === 'api_mail_log_suppressed');
    expect(suppressed!.payload).toMatchObject({ source_tracking_id: again, to: 'annoyed@patients.example' });
  });

  it('refuses a forged return path and mail for other domains without AUTH, changing nothing', async () => {
    const { id, returnPath } = await delivered('kept@patients.example');
    const tag = returnPath.slice(returnPath.indexOf('@') - 24, returnPath.indexOf('@'));
    const forged = returnPath.replace(tag, tag.slice(0, 23) + (tag.endsWith('0') ? '1' : '0'));
    const otherId = returnPath.replace(
      /^b-t([0-9a-z]+)-/,
      (_m, id36: string) => `b-t${(parseInt(id36, 36) + 1).toString(36)}-`,
    );
    const dsn = (to: string) =>
      dsnMessage({
        to,
        recipient: 'kept@patients.example',
        action: 'failed',
        status: '5.1.1',
        diagnostic: '550 5.1.1 unknown',
      });
    await expect(sendReport(smtp.ports.port25!, [forged], dsn(forged))).rejects.toMatchObject({
      responseCode: 550,
      response: expect.stringContaining('5.1.1 No such return path'),
    });
    await expect(sendReport(smtp.ports.port25!, [otherId], dsn(otherId))).rejects.toMatchObject({
      responseCode: 550,
    });
    await expect(
      sendReport(smtp.ports.port25!, ['someone@patients.example'], dsn('someone@patients.example')),
    ).rejects.toMatchObject({ responseCode: 550, response: expect.stringContaining('5.7.1') });
    expect(await statusOf(id)).toBe('delivered');
    expect((await eventsOf(t, id)).map((e) => e.event)).toEqual(['delivered']);
    expect(await suppressionOf(t, acct, 'kept@patients.example')).toBeNull();
  });

  it('accepts and drops mail to a return path that is no report (an auto-reply)', async () => {
    const { id, returnPath } = await delivered('away@patients.example');
    const reply = await sendReport(
      smtp.ports.port25!,
      [returnPath],
      [
        'From: <away@patients.example>',
        `To: <${returnPath}>`,
        'Subject: Out of office',
        'Auto-Submitted: auto-replied',
        '',
        'I am away until Monday.',
        '',
      ].join('\r\n'),
    );
    expect(reply).toMatch(/^250 .*dropped/);
    expect(await statusOf(id)).toBe('delivered');
    expect((await eventsOf(t, id)).map((e) => e.event)).toEqual(['delivered']);
  });
});

describe(`without a bounce domain (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let acct: TestAccount;
  let smtp: RunningSmtp;
  let worker: Worker;

  beforeAll(async () => {
    t = await createTestApp({ config: { smtpHost: '127.0.0.1' } });
    acct = await t.createAccount();
    worker = startWorker(t, {}, { all: true });
    smtp = await startReportListener(t);
  });
  afterAll(async () => {
    await smtp?.stop();
    await worker?.stop(2000);
    await t?.close();
  });

  it('sends with the From address as envelope sender, and port 25 takes nothing without AUTH', async () => {
    const id = await sendMessage(t, acct, { recipients: ['one@patients.example'] });
    await waitUntilFinished(t, id);
    expect(await envelopeSenderOf(t, id)).toBe(`clinic@${acct.domain}`);
    const to = `b-t1-000000000000000000000000@${BOUNCE_DOMAIN}`;
    await expect(
      sendReport(smtp.ports.port25!, [to], arfMessage({ to, recipient: 'one@patients.example' })),
    ).rejects.toMatchObject({ responseCode: 530 });
  });
});
