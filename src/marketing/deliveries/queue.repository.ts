/**
 * The marketing delivery lane: one work row per marketing delivery (a campaign send's or a drip step's email to one
 * subscriber), on a queue of its own so campaigns never delay transactional mail.
 */
import type { Queryable } from '../../db/types.ts';
import { enqueueJob, enqueueJobs } from '../../jobs/jobs.repository.ts';

/** The queue marketing deliveries are worked on. */
export const MARKETING_DELIVERY_QUEUE = 'marketing.delivery';

/** The payload of a marketing delivery work row. */
export interface MarketingDeliveryJob {
  deliveryId: number;
}

/** Queues one work row per delivery id. */
export async function enqueueDeliveries(db: Queryable, deliveryIds: number[], now: number): Promise<void> {
  const payload = (deliveryId: number): MarketingDeliveryJob => ({ deliveryId });
  await enqueueJobs(
    db,
    deliveryIds.map((id) => ({ queue: MARKETING_DELIVERY_QUEUE, payload: payload(id) })),
    now,
  );
}

/** Queues a send's parked deliveries again with new work rows (on resume, or on cancel so they are skipped). */
export async function requeueParked(db: Queryable, sendId: number, now: number): Promise<number> {
  const rows = await db
    .updateTable('marketing_deliveries')
    .set({ status: 'queued', updated_at: now })
    .where('send_id', '=', sendId)
    .where('status', '=', 'paused')
    .returning('id')
    .execute();
  await enqueueDeliveries(
    db,
    rows.map((r) => r.id),
    now,
  );
  return rows.length;
}

/** What a drip step's email needs to become a delivery. */
export interface DripDeliveryInput {
  customerId: number;
  campaignMailingId: number;
  dripEnrollmentId: number;
  dripNodeId: string;
  subscriberId: number;
  email: string;
}

/**
 * Creates the delivery of one drip step's email to one subscriber and its work row, in the caller's transaction.
 * At most one delivery exists per (enrollment, step): a second call returns the first delivery's id, `created` false, and
 * enqueues nothing.
 */
export async function enqueueDripDelivery(
  db: Queryable,
  input: DripDeliveryInput,
  now = Date.now(),
): Promise<{ id: number; created: boolean }> {
  const inserted = await db
    .insertInto('marketing_deliveries')
    .values({
      customer_id: input.customerId,
      send_id: null,
      campaign_mailing_id: input.campaignMailingId,
      drip_enrollment_id: input.dripEnrollmentId,
      drip_node_id: input.dripNodeId,
      subscriber_id: input.subscriberId,
      email: input.email,
      status: 'queued',
      delivery_status: 'queued',
      header_message_id: null,
      delivered_at: null,
      first_opened_at: null,
      unsubscribed_at: null,
      global_unsubscribed_at: null,
      last_response: null,
      via: null,
      tls: null,
      secure_token_hash: null,
      secure_expires_at: null,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(['drip_enrollment_id', 'drip_node_id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted) {
    await enqueueJob(
      db,
      {
        queue: MARKETING_DELIVERY_QUEUE,
        payload: { deliveryId: inserted.id } satisfies MarketingDeliveryJob,
      },
      now,
    );
    return { id: inserted.id, created: true };
  }
  const existing = await db
    .selectFrom('marketing_deliveries')
    .select('id')
    .where('drip_enrollment_id', '=', input.dripEnrollmentId)
    .where('drip_node_id', '=', input.dripNodeId)
    .executeTakeFirstOrThrow();
  return { id: existing.id, created: false };
}

/** What a drip condition reads of an earlier step's delivery: whether it was opened or clicked. */
export async function deliveryEngagement(
  db: Queryable,
  deliveryId: number,
): Promise<{ opened: boolean; clicked: boolean } | undefined> {
  const row = await db
    .selectFrom('marketing_deliveries')
    .select(['first_opened_at', 'click_count'])
    .where('id', '=', deliveryId)
    .executeTakeFirst();
  return row && { opened: row.first_opened_at !== null, clicked: row.click_count > 0 };
}
