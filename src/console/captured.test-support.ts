/** A campaign sent to one subscriber on the capture transport, for the Captured mail pages' tests. */
import type { TestAccount, TestApp } from '../test/harness.ts';
import { waitFor } from '../test/wait.ts';
import { keyOf, makeList, makeSubscriber, marketingClient } from '../marketing/marketing.test-support.ts';
import { makeMailing } from '../marketing/mailings/mailings.test-support.ts';

/** Sends a campaign of `subject` to one subscriber (a delivery worker must run); returns the mailing's and copy's UUIDs. */
export async function sendCapturedCampaign(
  t: TestApp,
  acct: TestAccount,
  subject: string,
): Promise<{ mailing: string; copy: string }> {
  const call = marketingClient(t, acct);
  const list = await makeList(call, 'Patients');
  await makeSubscriber(call, 'hal@patients.example', { first_name: 'Hal' }, list);
  const mailing = await makeMailing(call, subject, {
    text_part: 'Flu shots are in. Book a slot.',
    from_email: `news@${acct.domain}`,
  });
  const res = await call('POST', '/campaign_mailing_sends', {
    campaign_mailing_id: mailing,
    campaign_mailing_send: { subscription_list_id: list },
  });
  const sendId = await keyOf(
    t,
    'campaign_mailing_sends',
    String(res.headers['sealpost-campaign-mailing-send-id']),
  );
  const db = t.ctx.database.db;
  await waitFor(
    async () =>
      (await db
        .selectFrom('marketing_captured as c')
        .innerJoin('marketing_deliveries as d', 'd.id', 'c.delivery_id')
        .select('d.uuid')
        .where('d.send_id', '=', sendId)
        .executeTakeFirst()) !== undefined,
    20_000,
    50,
  );
  const row = await db
    .selectFrom('marketing_deliveries as d')
    .innerJoin('campaign_mailings as m', 'm.id', 'd.campaign_mailing_id')
    .select(['d.uuid', 'm.uuid as mailing'])
    .where('d.send_id', '=', sendId)
    .executeTakeFirstOrThrow();
  return { mailing: row.mailing, copy: row.uuid };
}
