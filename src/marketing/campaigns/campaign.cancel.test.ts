/**
 * Cancelling a running send through a real SMTP sink: no email starts after the cancel, the deliveries not yet sent are
 * skipped, and the send shows cancelled with the counts it reached. A paused send can be cancelled too; a finished one
 * cannot.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, expect, it } from 'vitest';
import { waitFor } from '../../test/wait.ts';
import { keyOf } from '../marketing.test-support.ts';
import { listOfMany, sinkTestBed, startSendOf } from './sends.test-support.ts';
import { makeMailing } from '../mailings/mailings.test-support.ts';
import { cancelSend, pauseSend } from './sends.service.ts';

const { t, acct, sink, call, startWorker } = sinkTestBed();
let mailing: string;

beforeAll(async () => {
  mailing = await makeMailing(call, 'Monthly news', {
    html_part: '<p>Hi {{first_name}}</p>',
    from_email: `news@${acct.domain}`,
  });
});

const listOf = (name: string, prefix: string, n: number) => listOfMany(call, name, prefix, n);
const startSend = (list: string) => startSendOf(call, acct, mailing, list);

const sendOf = async (id: string) =>
  (await call('GET', `/campaign_mailing_sends/${id}`)).json().data.attributes as Record<string, unknown>;
const receivedBy = (prefix: string) =>
  sink.received.map((m) => m.to[0]!).filter((to) => to.startsWith(`${prefix}-`));

it('stops a running send: nothing more goes out and the counts so far stay', async () => {
  const customer = acct.account.customer_id;
  const list = await listOf('Cancel', 'cancel', 40);
  startWorker({ marketingSendRate: 40, marketingConcurrency: 2 });
  const sendId = await startSend(list);
  await waitFor(() => receivedBy('cancel').length >= 3, 10_000, 10, 'the first emails');
  const cancelled = await cancelSend(t.ctx, customer, sendId);
  expect(cancelled.state).toBe('cancelled');
  expect(cancelled.finished_at).not.toBeNull();
  await sleep(400); // emails already past the gate finish
  const settled = receivedBy('cancel').length;
  await sleep(800);
  expect(receivedBy('cancel').length).toBe(settled);
  expect(settled).toBeLessThan(40);

  const s = await sendOf(sendId);
  expect(s.state).toBe('cancelled');
  expect(s.delivered_count).toBe(settled);
  const rows = await t.ctx.database.db
    .selectFrom('marketing_deliveries')
    .select(['status'])
    .where('send_id', '=', await keyOf(t, 'campaign_mailing_sends', sendId))
    .execute();
  expect(rows.filter((r) => r.status === 'delivered')).toHaveLength(settled);
  expect(rows.every((r) => r.status === 'delivered' || r.status === 'skipped' || r.status === 'queued')).toBe(
    true,
  );
  await expect(cancelSend(t.ctx, customer, sendId)).rejects.toMatchObject({ code: 'marketing.send_state' });
});

it('cancels a paused send, and its parked deliveries never go out', async () => {
  const customer = acct.account.customer_id;
  const list = await listOf('Paused then cancelled', 'parked', 20);
  startWorker({ marketingSendRate: 20, marketingConcurrency: 1 });
  const sendId = await startSend(list);
  await waitFor(() => receivedBy('parked').length >= 2, 10_000, 10, 'the first emails');
  await pauseSend(t.ctx, customer, sendId);
  await sleep(400);
  const before = receivedBy('parked').length;
  expect((await cancelSend(t.ctx, customer, sendId)).state).toBe('cancelled');
  await waitFor(
    async () =>
      (
        await t.ctx.database.db
          .selectFrom('marketing_deliveries')
          .select('status')
          .where('send_id', '=', await keyOf(t, 'campaign_mailing_sends', sendId))
          .where('status', 'in', ['paused', 'queued'])
          .execute()
      ).length === 0,
    10_000,
    20,
    'the parked deliveries skipped',
  );
  expect(receivedBy('parked').length).toBe(before);
  expect((await sendOf(sendId)).state).toBe('cancelled');
});
