/**
 * Bounces after the conversation, campaign mail: each delivery leaves with its own return path; a DSN or feedback report
 * sent to it on port 25 moves the send's counters and the subscriber's statistics and fills the suppression list, and a
 * later campaign does not attempt a suppressed address (its delivery is recorded as suppressed).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Worker } from '../../jobs/worker.ts';
import { TEST_DIALECT } from '../../test/database.ts';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import {
  arfMessage,
  dsnMessage,
  sendReport,
  startReportListener,
  suppressionOf,
} from '../../test/reports.ts';
import { startDeliveryWorker } from '../../delivery/delivery.test-support.ts';
import type { RunningSmtp } from '../../smtp/smtp.server.ts';
import { keyOf, makeList, makeSubscriber, marketingClient } from '../marketing.test-support.ts';
import { makeMailing } from '../mailings/mailings.test-support.ts';
import { startSendOf, waitUntilSent } from '../campaigns/sends.test-support.ts';

const BOUNCE_DOMAIN = 'bounces.sealpost.test';

describe(`bounces after delivery, campaigns (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let acct: TestAccount;
  let smtp: RunningSmtp;
  let worker: Worker;

  beforeAll(async () => {
    t = await createTestApp({ config: { smtpHost: '127.0.0.1', bounceDomain: BOUNCE_DOMAIN } });
    acct = await t.createAccount();
    worker = startDeliveryWorker(t, { marketingConcurrency: 1 });
    smtp = await startReportListener(t);
  });
  afterAll(async () => {
    await smtp?.stop();
    await worker?.stop(2000);
    await t?.close();
  });

  /** Sends the mailing to the list and waits until the send is finished; returns the send id. */
  async function sendAndWait(call: ReturnType<typeof marketingClient>, mailing: string, list: string) {
    const sendId = await startSendOf(call, acct, mailing, list);
    await waitUntilSent(call, sendId);
    return sendId;
  }

  /** The return path each captured delivery of the send left with, by recipient. */
  async function returnPaths(sendId: string): Promise<Map<string, string>> {
    const rows = await t.ctx.database.db
      .selectFrom('marketing_captured as c')
      .innerJoin('marketing_deliveries as d', 'd.id', 'c.delivery_id')
      .select(['c.envelope_to', 'c.envelope_from'])
      .where('d.send_id', '=', await keyOf(t, 'campaign_mailing_sends', sendId))
      .execute();
    return new Map(rows.map((r) => [r.envelope_to, r.envelope_from]));
  }

  it('moves a bounced delivery from delivered to bounced, counts a delay, lists complaints, and skips them next time', async () => {
    const call = marketingClient(t, acct);
    const list = await makeList(call, 'Late bounces');
    const ids = new Map<string, string>();
    for (const who of ['gone', 'slow', 'annoyed'])
      ids.set(who, await makeSubscriber(call, `${who}@patients.example`, {}, list));
    const mailing = await makeMailing(call, 'Newsletter', {
      text_part: 'Hello',
      from_email: `news@${acct.domain}`,
    });
    const first = await sendAndWait(call, mailing, list);
    const paths = await returnPaths(first);
    expect(paths.size).toBe(3);
    for (const path of paths.values())
      expect(path).toMatch(/^b-m[0-9a-z]+-[0-9a-f]{24}@bounces\.sealpost\.test$/);

    const port = smtp.ports.port25!;
    const gone = paths.get('gone@patients.example')!;
    const slow = paths.get('slow@patients.example')!;
    const annoyed = paths.get('annoyed@patients.example')!;
    expect(
      await sendReport(
        port,
        [gone],
        dsnMessage({
          to: gone,
          recipient: 'gone@patients.example',
          action: 'failed',
          status: '5.1.1',
          diagnostic: '550 5.1.1 User unknown',
        }),
      ),
    ).toMatch(/^250 /);
    await sendReport(
      port,
      [slow],
      dsnMessage({
        to: slow,
        recipient: 'slow@patients.example',
        action: 'delayed',
        status: '4.4.7',
        diagnostic: '421 4.4.7 Delivery time expired, still trying',
      }),
    );
    await sendReport(port, [annoyed], arfMessage({ to: annoyed, recipient: 'annoyed@patients.example' }));

    const totals = (
      await call('GET', `/analytics/campaign_mailing_send_totals?campaign_mailing_send_id=${first}`)
    ).json().data;
    expect(totals).toMatchObject({ delivered: 2, bounced: 1, hard_bounced: 1, soft_bounced: 1 });
    const stats = async (who: string) =>
      (await call('GET', `/subscribers/${ids.get(who)}?with_stats=true`)).json().data.attributes.statistics;
    expect(await stats('gone')).toMatchObject({ deliveries: 1, delivered: 0, hard_bounced: 1 });
    expect(await stats('slow')).toMatchObject({ delivered: 1, soft_bounced: 1 });
    const rows = await t.ctx.database.db
      .selectFrom('marketing_deliveries')
      .select(['email', 'status', 'delivery_status', 'last_response'])
      .where('send_id', '=', await keyOf(t, 'campaign_mailing_sends', first))
      .orderBy('email')
      .execute();
    expect(rows).toEqual([
      expect.objectContaining({ email: 'annoyed@patients.example', status: 'delivered' }),
      {
        email: 'gone@patients.example',
        status: 'failed',
        delivery_status: 'hard bounced',
        last_response: '550 5.1.1 User unknown',
      },
      expect.objectContaining({
        email: 'slow@patients.example',
        status: 'delivered',
        delivery_status: 'soft bounced',
      }),
    ]);
    expect(await suppressionOf(t, acct, 'gone@patients.example')).toMatchObject({ reason: 'hard_bounce' });
    // The suppression names the delivery by its UUID, never by its internal key.
    const goneDelivery = await t.ctx.database.db
      .selectFrom('marketing_deliveries')
      .select('uuid')
      .where('send_id', '=', await keyOf(t, 'campaign_mailing_sends', first))
      .where('email', '=', 'gone@patients.example')
      .executeTakeFirstOrThrow();
    expect((await suppressionOf(t, acct, 'gone@patients.example'))?.detail).toBe(
      `550 5.1.1 User unknown, campaign delivery ${goneDelivery.uuid}`,
    );
    expect(await suppressionOf(t, acct, 'annoyed@patients.example')).toMatchObject({ reason: 'complaint' });
    expect(await suppressionOf(t, acct, 'slow@patients.example')).toBeNull();

    // The next campaign to the same list attempts only the address that is not suppressed.
    const second = await sendAndWait(call, mailing, list);
    expect([...(await returnPaths(second)).keys()]).toEqual(['slow@patients.example']);
    const next = await t.ctx.database.db
      .selectFrom('marketing_deliveries')
      .select(['email', 'status', 'delivery_status', 'last_response'])
      .where('send_id', '=', await keyOf(t, 'campaign_mailing_sends', second))
      .orderBy('email')
      .execute();
    expect(next.map((r) => [r.email, r.status, r.delivery_status])).toEqual([
      ['annoyed@patients.example', 'skipped', 'suppressed'],
      ['gone@patients.example', 'skipped', 'suppressed'],
      ['slow@patients.example', 'delivered', 'delivered'],
    ]);
    expect(next[0]!.last_response).toMatch(/suppression list \(complaint at /);
    const secondTotals = (
      await call('GET', `/analytics/campaign_mailing_send_totals?campaign_mailing_send_id=${second}`)
    ).json().data;
    expect(secondTotals).toMatchObject({ delivered: 1, bounced: 0 });
  });

  it('refuses a marketing return path whose tag was changed', async () => {
    const rows = await t.ctx.database.db.selectFrom('marketing_captured').select('envelope_from').execute();
    const path = rows[0]!.envelope_from;
    const forged = path.replace(/[0-9a-f]@/, (m) => `${m[0] === 'a' ? 'b' : 'a'}@`);
    await expect(
      sendReport(smtp.ports.port25!, [forged], arfMessage({ to: forged, recipient: 'x@patients.example' })),
    ).rejects.toMatchObject({ responseCode: 550 });
  });
});
