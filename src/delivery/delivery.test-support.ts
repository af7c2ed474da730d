/** Shared pieces of the delivery tests: a real worker over the delivery queues, sending through the HTTP API, and reading outcomes. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config/schema.ts';
import type { Worker } from '../jobs/worker.ts';
import { startTestWorker } from '../test/worker.ts';
import { queueHandlers, type BackgroundOptions } from '../app/workers.ts';
import type { TestAccount, TestApp } from '../test/harness.ts';
import { waitFor } from '../test/wait.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A delivery worker in a process of its own (fixtures/delivery-worker-process.ts), relaying to `relayUrl`. */
export interface DeliveryProcess {
  child: ChildProcess;
  /** Its standard output and error so far. */
  output(): string;
}

/**
 * Starts fixtures/delivery-worker-process.ts over the test app's database; `extra` are its optional arguments
 * (marketing concurrency, node name, takeover limit).
 */
export function spawnDeliveryProcess(
  t: TestApp,
  relayUrl: string,
  leaseMs: number,
  extra: string[] = [],
): DeliveryProcess {
  const child = spawn(
    process.execPath,
    [
      'bin/run-ts.js',
      'src/delivery/fixtures/delivery-worker-process.ts',
      t.scratch.url,
      t.ctx.config.masterKey!,
      relayUrl,
      String(leaseMs),
      ...extra,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  return { child, output: () => output };
}

/** Starts a worker over the delivery queues with configuration overrides (the relay URL of a sink, say), and wires wake-ups. */
export function startDeliveryWorker(
  t: TestApp,
  overrides: Partial<Config> = {},
  opts: BackgroundOptions = {},
): Worker {
  return startTestWorker(t, overrides, (ctx) => queueHandlers(ctx, opts));
}

/** Sends one message through POST /v1/email/messages; returns its sourceTrackingId. */
export async function sendMessage(
  t: TestApp,
  acct: TestAccount,
  message: Record<string, unknown>,
  data: Record<string, unknown> = {},
): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/email/messages',
    headers: { ...acct.auth, 'content-type': 'application/json' },
    payload: JSON.stringify({
      data: {
        message: {
          recipients: ['rcpt@example.net'],
          headers: { subject: 'Lab results ready', from: `clinic@${acct.domain}` },
          content: { 'text/plain': 'Your potassium is 4.1 mmol/L.' },
          ...message,
        },
        ...data,
      },
    }),
  });
  if (res.statusCode !== 200) throw new Error(`send failed: ${res.statusCode} ${res.body}`);
  return (res.json() as { sourceTrackingId: string }).sourceTrackingId;
}

/** The receipt as GET /v1/email/message_receipt returns it. */
export interface ReceiptBody {
  data: {
    message: {
      id: string;
      message_deliveries: {
        recipient: string;
        status: { deliveryStatus: string; deliveryTime: string | null; reason?: string };
      }[];
    };
  };
}

/** Reads a message's receipt through the API. */
export async function receiptOf(t: TestApp, acct: TestAccount, id: string): Promise<ReceiptBody> {
  const res = await t.app.inject({
    method: 'GET',
    url: `/v1/email/message_receipt?sourceTrackingId=${id}`,
    headers: acct.auth,
  });
  if (res.statusCode !== 200) throw new Error(`receipt failed: ${res.statusCode} ${res.body}`);
  return res.json() as ReceiptBody;
}

/** Waits until every recipient of the message is final (delivered or failed). */
export async function waitUntilFinished(t: TestApp, id: string, timeoutMs = 10_000): Promise<void> {
  await waitFor(
    async () => {
      const m = await t.ctx.database.db
        .selectFrom('messages')
        .select(['pending_count', 'finished_at'])
        .where('id', '=', id)
        .executeTakeFirst();
      return m !== undefined && m.pending_count === 0 && m.finished_at !== null;
    },
    timeoutMs,
    20,
    `message ${id} finished`,
  );
}

/** The recipient rows of a message, in order. */
export function recipientRows(t: TestApp, id: string) {
  return t.ctx.database.db
    .selectFrom('message_recipients')
    .selectAll()
    .where('message_id', '=', id)
    .orderBy('id')
    .execute();
}

/** The delivery events of a message, in order, with their data parsed. */
export async function eventsOf(
  t: TestApp,
  id: string,
): Promise<{ event: string; recipient_id: number | null; data: Record<string, string> }[]> {
  const rows = await t.ctx.database.db
    .selectFrom('email_events')
    .select(['event', 'recipient_id', 'data'])
    .where('message_id', '=', id)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    event: r.event,
    recipient_id: r.recipient_id === null ? null : Number(r.recipient_id),
    data: JSON.parse(r.data),
  }));
}
