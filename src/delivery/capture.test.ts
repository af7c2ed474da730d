/** The capture transport (the default) and content retention, end to end through the HTTP API and a real worker. */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { simpleParser } from 'mailparser';
import type { Worker } from '../jobs/worker.ts';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { openCapturedRaw } from '../email/captured.service.ts';
import { contentRetentionTask } from '../email/delivery.service.ts';
import {
  receiptOf,
  recipientRows,
  sendMessage,
  startDeliveryWorker,
  waitUntilFinished,
} from './delivery.test-support.ts';

const DAY_MS = 86_400_000;

let t: TestApp;
let acct: TestAccount;
let worker: Worker | undefined;

beforeAll(async () => {
  t = await createTestApp();
  acct = await t.createAccount();
});
afterEach(async () => {
  await worker?.stop(2000);
  worker = undefined;
});
afterAll(() => t.close());

async function capturedRaw(messageId: string): Promise<string[]> {
  const rows = await t.ctx.database.db
    .selectFrom('captured_messages')
    .selectAll()
    .where('message_id', '=', messageId)
    .execute();
  return rows.map((r) =>
    openCapturedRaw(t.ctx.sealer, {
      message_id: r.message_id,
      recipient_id: Number(r.recipient_id),
      raw: r.raw!,
    }),
  );
}

it('keeps a DKIM-signed copy carrying the Message-ID the receipt shows', async () => {
  worker = startDeliveryWorker(t);
  const id = await sendMessage(t, acct, {});
  await waitUntilFinished(t, id);
  const receipt = await receiptOf(t, acct, id);
  expect(receipt.data.message.message_deliveries.map((d) => d.status.deliveryStatus)).toEqual(['delivered']);
  const [raw] = await capturedRaw(id);
  const parsed = await simpleParser(raw!);
  expect(parsed.messageId).toBe(receipt.data.message.id);
  expect(parsed.headers.get('dkim-signature')).toMatchObject({
    params: expect.objectContaining({ d: acct.domain, s: expect.any(String) }),
  });
  expect((await recipientRows(t, id))[0]).toMatchObject({ via: 'capture', tls: null, status: 'delivered' });
});

it('keeps one copy per recipient, each addressed to that recipient only', async () => {
  worker = startDeliveryWorker(t);
  const id = await sendMessage(t, acct, {
    recipients: ['a@example.net'],
    cc: ['b@example.net'],
    bcc: ['c@example.net'],
  });
  await waitUntilFinished(t, id);
  const rows = await t.ctx.database.db
    .selectFrom('captured_messages')
    .select('envelope_to')
    .where('message_id', '=', id)
    .execute();
  expect(rows.map((r) => r.envelope_to).sort()).toEqual(['a@example.net', 'b@example.net', 'c@example.net']);
});

it('purges content and captured copies of messages finished longer ago than retention, and nothing else', async () => {
  worker = startDeliveryWorker(t);
  const finished = await sendMessage(t, acct, {});
  await waitUntilFinished(t, finished);
  await worker.stop(2000);
  worker = undefined;
  const pending = await sendMessage(t, acct, {});

  await contentRetentionTask(t.ctx).run(Date.now() + (t.ctx.config.contentRetentionDays + 1) * DAY_MS);

  const db = t.ctx.database.db;
  const messages = await db
    .selectFrom('messages')
    .select(['id', 'content', 'content_purged_at'])
    .where('id', 'in', [finished, pending])
    .execute();
  const byId = new Map(messages.map((m) => [m.id, m]));
  expect(byId.get(finished)).toMatchObject({ content: null, content_purged_at: expect.anything() });
  expect(byId.get(pending)).toMatchObject({ content: expect.any(String), content_purged_at: null });
  const captured = await db
    .selectFrom('captured_messages')
    .select('raw')
    .where('message_id', '=', finished)
    .execute();
  expect(captured).toEqual([{ raw: null }]);
  expect((await receiptOf(t, acct, finished)).data.message.message_deliveries[0]!.status.deliveryStatus).toBe(
    'delivered',
  );
});

it('removes idempotency keys older than a day when retention runs', async () => {
  const db = t.ctx.database.db;
  const now = Date.now();
  await db
    .insertInto('idempotency_keys')
    .values([
      {
        customer_id: acct.account.customer_id,
        key: 'old',
        request_hash: 'h',
        response: '[]',
        created_at: now - 2 * DAY_MS,
      },
      {
        customer_id: acct.account.customer_id,
        key: 'new',
        request_hash: 'h',
        response: '[]',
        created_at: now - 1000,
      },
    ])
    .execute();
  await contentRetentionTask(t.ctx).run(now);
  const keys = await db
    .selectFrom('idempotency_keys')
    .select('key')
    .where('customer_id', '=', acct.account.customer_id)
    .execute();
  expect(keys.map((k) => k.key)).toEqual(['new']);
});
