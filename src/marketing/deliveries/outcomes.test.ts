/**
 * Outcomes of a send's deliveries recorded together in one group commit, on a real database: every delivery,
 * subscriber, send and mailing counter is what recording them one by one gives, the send's row is written twice for
 * the whole batch (its counters, its completion), and the send is complete once its last delivery settles.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { countingCommitter } from '../../test/committer.ts';
import type { RecordedOutcome } from '../../delivery/model.ts';
import { keyOf, marketingClient } from '../marketing.test-support.ts';
import { makeMailing } from '../mailings/mailings.test-support.ts';
import { listOfMany, startSendOf } from '../campaigns/sends.test-support.ts';
import { expandSlice } from '../campaigns/expand.ts';
import { loadMarketingItem } from './delivery.ts';
import { outcomeMerger } from './outcomes.ts';
import { testFinish } from '../../test/worker.ts';

let t: TestApp;
let acct: TestAccount;
let call: ReturnType<typeof marketingClient>;

beforeAll(async () => {
  t = await createTestApp();
  acct = await t.createAccount();
  call = marketingClient(t, acct);
});
afterAll(async () => t.close());

const sendCounters = (id: number) =>
  t.ctx.database.db
    .selectFrom('campaign_mailing_sends')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

const outcome = (status: RecordedOutcome['status'], response: string): RecordedOutcome => ({
  status,
  deliveryStatus: status,
  event:
    status === 'delivered' ? 'delivered' : status === 'failed' ? 'permanent_failure' : 'temporary_failure',
  response,
  via: 'relay',
  tls: true,
  attempts: 1,
  at: Date.now(),
});

it("records a batch of a send's outcomes with the send's row written twice in all, and completes the send", async () => {
  const list = await listOfMany(call, 'Batch outcomes', 'batch', 6);
  const mailing = await makeMailing(call, 'Clinic news', { from_email: `news@${acct.domain}` });
  const sendId = await keyOf(t, 'campaign_mailing_sends', await startSendOf(call, acct, mailing, list));
  expect(await expandSlice(t.ctx, sendId)).toBe(6);
  const { db } = t.ctx.database;
  const deliveries = await db
    .selectFrom('marketing_deliveries')
    .select(['id', 'subscriber_id'])
    .where('send_id', '=', sendId)
    .orderBy('id')
    .execute();
  const items = await Promise.all(deliveries.map((d) => loadMarketingItem(t.ctx, d.id)));
  const outcomes = [
    outcome('delivered', '250 ok'),
    outcome('delivered', '250 ok'),
    outcome('delivered', '250 ok'),
    outcome('failed', '550 5.1.1 no such user'),
    outcome('deferred', '451 4.3.0 try later'),
    outcome('delivered', '250 ok'),
  ];

  // Submitted in one turn of the loop, the six share one group commit.
  const { committer, updates } = countingCommitter(t.ctx.database.db);
  const recorded = await Promise.all(
    items.map((item, i) =>
      committer.merge(outcomeMerger, {
        item: item!,
        outcome: outcomes[i]!,
        finish: testFinish(i + 1).finish,
      }),
    ),
  );
  expect(recorded).toEqual([true, true, true, true, true, true]);
  // The six work rows end in one statement.
  expect(updates.get('jobs')).toBe(1);
  // The send's row: its summed counters, then its completion check (recorded one by one: three per outcome).
  expect(updates.get('campaign_mailing_sends')).toBe(2);
  expect(updates.get('campaign_mailings')).toBe(1);

  const send = await sendCounters(sendId);
  expect(send).toMatchObject({
    delivered_count: 4,
    bounced_count: 1,
    hard_bounced_count: 1,
    soft_bounced_count: 1,
    settled_count: 5,
    state: 'sending',
  });
  const mailingRow = await db
    .selectFrom('campaign_mailings')
    .select(['delivered_count', 'hard_bounced_count', 'soft_bounced_count'])
    .where('id', '=', send.campaign_mailing_id)
    .executeTakeFirstOrThrow();
  expect(mailingRow).toEqual({ delivered_count: 4, hard_bounced_count: 1, soft_bounced_count: 1 });
  const stats = await db
    .selectFrom('subscribers')
    .select(['id', 'stat_deliveries', 'stat_delivered', 'stat_hard_bounced', 'stat_soft_bounced'])
    .where(
      'id',
      'in',
      deliveries.map((d) => d.subscriber_id!),
    )
    .orderBy('id')
    .execute();
  expect(stats.map(({ id: _, ...s }) => s)).toEqual([
    { stat_deliveries: 1, stat_delivered: 1, stat_hard_bounced: 0, stat_soft_bounced: 0 },
    { stat_deliveries: 1, stat_delivered: 1, stat_hard_bounced: 0, stat_soft_bounced: 0 },
    { stat_deliveries: 1, stat_delivered: 1, stat_hard_bounced: 0, stat_soft_bounced: 0 },
    { stat_deliveries: 1, stat_delivered: 0, stat_hard_bounced: 1, stat_soft_bounced: 0 },
    { stat_deliveries: 0, stat_delivered: 0, stat_hard_bounced: 0, stat_soft_bounced: 1 },
    { stat_deliveries: 1, stat_delivered: 1, stat_hard_bounced: 0, stat_soft_bounced: 0 },
  ]);
  const suppressed = await db
    .selectFrom('email_suppressions')
    .select('address')
    .where('customer_id', '=', acct.account.customer_id)
    .execute();
  expect(suppressed.map((s) => s.address)).toEqual([items[3]!.address.toLowerCase()]);

  // An outcome for a delivery already final changes nothing; the deferred one's retry settles the send.
  const again = await committer.merge(outcomeMerger, {
    item: items[0]!,
    outcome: outcome('failed', '550 no'),
  });
  expect(again).toBe(false);
  const last = await committer.merge(outcomeMerger, {
    item: items[4]!,
    outcome: { ...outcome('delivered', '250 ok'), attempts: 2 },
  });
  expect(last).toBe(true);
  expect(await sendCounters(sendId)).toMatchObject({
    delivered_count: 5,
    bounced_count: 1,
    hard_bounced_count: 1,
    soft_bounced_count: 1,
    settled_count: 6,
    state: 'sent',
  });
  const rows = await db
    .selectFrom('marketing_deliveries')
    .select(['status', 'soft_bounced', 'attempts'])
    .where('send_id', '=', sendId)
    .orderBy('id')
    .execute();
  expect(rows.map((r) => r.status)).toEqual([
    'delivered',
    'delivered',
    'delivered',
    'failed',
    'delivered',
    'delivered',
  ]);
  expect(rows[4]).toEqual({ status: 'delivered', soft_bounced: 1, attempts: 2 });
});

it("counts a drip step's outcomes for its mailing alone, and writes a failed batch again one outcome at a time", async () => {
  const list = await listOfMany(call, 'Drip outcomes', 'drip', 2);
  const mailing = await keyOf(
    t,
    'campaign_mailings',
    await makeMailing(call, 'Welcome', { from_email: `news@${acct.domain}` }),
  );
  const { db } = t.ctx.database;
  const members = await db
    .selectFrom('subscription_list_members')
    .select('subscriber_id')
    .where('list_id', '=', await keyOf(t, 'subscription_lists', list))
    .orderBy('subscriber_id')
    .execute();
  const now = Date.now();
  const ids: number[] = [];
  for (const [i, m] of members.entries()) {
    const row = await db
      .insertInto('marketing_deliveries')
      .values({
        customer_id: acct.account.customer_id,
        send_id: null,
        campaign_mailing_id: mailing,
        drip_enrollment_id: null,
        drip_node_id: null,
        subscriber_id: m.subscriber_id,
        email: `drip-${i}@patients.example`,
        status: 'queued',
        delivery_status: 'queued',
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    ids.push(row.id);
  }
  const items = await Promise.all(ids.map((id) => loadMarketingItem(t.ctx, id)));
  const { committer } = countingCommitter(t.ctx.database.db);
  // The second outcome's companion write fails: the shared transaction rolls back and each outcome runs alone.
  const results = await Promise.allSettled([
    committer.merge(outcomeMerger, { item: items[0]!, outcome: outcome('delivered', '250 ok') }),
    committer.merge(outcomeMerger, {
      item: items[1]!,
      outcome: outcome('delivered', '250 ok'),
      finish: testFinish(1, new Error('the work row could not be ended')).finish,
    }),
  ]);
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);

  const rows = await db
    .selectFrom('marketing_deliveries')
    .select(['status'])
    .where('id', 'in', ids)
    .orderBy('id')
    .execute();
  expect(rows.map((r) => r.status)).toEqual(['delivered', 'queued']);
  const counted = await db
    .selectFrom('campaign_mailings')
    .select(['delivered_count'])
    .where('id', '=', mailing)
    .executeTakeFirstOrThrow();
  expect(counted.delivered_count).toBe(1);
  const stats = await db
    .selectFrom('subscribers')
    .select(['stat_delivered'])
    .where(
      'id',
      'in',
      members.map((m) => m.subscriber_id),
    )
    .orderBy('id')
    .execute();
  expect(stats.map((s) => s.stat_delivered)).toEqual([1, 0]);
});
