/**
 * Campaigns on a fresh install's capture transport: each email is kept sealed per delivery, readable per send through
 * `sealpost captured campaign`, and purged after the content retention period.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Worker } from '../../jobs/worker.ts';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { startDeliveryWorker } from '../../delivery/delivery.test-support.ts';
import { runSealpost } from '../../bin/cli.test-support.ts';
import { keyOf, makeList, makeSubscriber, marketingClient } from '../marketing.test-support.ts';
import { makeMailing } from '../mailings/mailings.test-support.ts';
import { capturedOfSend, marketingRetentionTask } from './captured.ts';
import { startSendOf, waitUntilSent } from '../campaigns/sends.test-support.ts';

let t: TestApp;
let acct: TestAccount;
let worker: Worker;

beforeAll(async () => {
  t = await createTestApp();
  acct = await t.createAccount();
  worker = startDeliveryWorker(t);
});
afterAll(async () => {
  await worker.stop(2000);
  await t.close();
});

it('keeps each email of a send, shows them on the command line, and purges them after retention', async () => {
  const call = marketingClient(t, acct);
  const list = await makeList(call, 'Captured');
  await makeSubscriber(call, 'hal@patients.example', { first_name: 'Hal' }, list);
  await makeSubscriber(call, 'ivy@patients.example', { first_name: 'Ivy' }, list);
  const mailing = await makeMailing(call, 'Hello {{first_name}}', {
    text_part: 'Hi {{first_name}}',
    from_email: `news@${acct.domain}`,
  });
  const sendId = await keyOf(t, 'campaign_mailing_sends', await startSendOf(call, acct, mailing, list));
  await waitUntilSent(call, String(sendId));

  const kept = await capturedOfSend(t.ctx, acct.account.customer_id, sendId);
  expect(kept.map((c) => c.envelope_to).sort()).toEqual(['hal@patients.example', 'ivy@patients.example']);
  expect(kept.find((c) => c.envelope_to === 'hal@patients.example')!.raw).toContain('Subject: Hello Hal');
  await expect(capturedOfSend(t.ctx, acct.account.customer_id + 1000, sendId)).rejects.toMatchObject({
    code: 'marketing.send_not_found',
  });

  const { uuid } = await t.ctx.database.db
    .selectFrom('campaign_mailing_sends')
    .select('uuid')
    .where('id', '=', sendId)
    .executeTakeFirstOrThrow();
  for (const named of [String(sendId), uuid]) {
    const cli = await runSealpost(t.scratch.url, t.ctx.config.masterKey!, [
      'captured',
      'campaign',
      '--account',
      acct.account.username,
      '--send',
      named,
    ]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toContain('ivy@patients.example');
    expect(cli.stdout).toContain('hal@patients.example');
  }

  const later = Date.now() + (t.ctx.config.contentRetentionDays + 1) * 86_400_000;
  await marketingRetentionTask(t.ctx).run(later);
  expect((await capturedOfSend(t.ctx, acct.account.customer_id, sendId)).every((c) => c.raw === null)).toBe(
    true,
  );
});
