/**
 * SQL of recording a marketing delivery's outcome: the delivery as the outcome needs it, its new state, and its
 * subscriber's delivery counters. They run for every recipient of a send, so they are compiled once (see
 * db/precompiled.ts).
 */
import { sql } from 'kysely';
import type { Queryable } from '../../db/types.ts';
import { precompile } from '../../db/precompiled.ts';
import { FINAL_STATUSES, type DeliveryRow } from './deliveries.repository.ts';

/** What recording an attempt's outcome needs to know of its delivery. */
export type OutcomeTarget = Pick<
  DeliveryRow,
  | 'id'
  | 'status'
  | 'soft_bounced'
  | 'customer_id'
  | 'email'
  | 'subscriber_id'
  | 'send_id'
  | 'campaign_mailing_id'
>;

const findOutcomeTargetQuery = precompile((db, v: { id: number }) =>
  db
    .selectFrom('marketing_deliveries')
    .select([
      'id',
      'status',
      'soft_bounced',
      'customer_id',
      'email',
      'subscriber_id',
      'send_id',
      'campaign_mailing_id',
    ])
    .where('id', '=', v.id),
);

/** The delivery an outcome is recorded on; undefined when it does not exist. */
export async function findOutcomeTarget(db: Queryable, id: number): Promise<OutcomeTarget | undefined> {
  return (await findOutcomeTargetQuery(db, { id })).rows[0];
}

/** An attempt's outcome as a delivery row keeps it. */
export interface DeliveryOutcome {
  status: string;
  delivery_status: string;
  attempts: number;
  last_response: string;
  via: string;
  tls: number | null;
  delivered_at: number | null;
  header_message_id: string;
  soft_bounced: number;
}

const settleDeliveryQuery = precompile((db, v: DeliveryOutcome & { id: number; now: number }) =>
  db
    .updateTable('marketing_deliveries')
    .set({
      status: v.status,
      delivery_status: v.delivery_status,
      attempts: v.attempts,
      last_response: v.last_response,
      via: v.via,
      tls: v.tls,
      delivered_at: v.delivered_at,
      header_message_id: v.header_message_id,
      soft_bounced: v.soft_bounced,
      updated_at: v.now,
    })
    .where('id', '=', v.id)
    .where('status', 'not in', FINAL_STATUSES),
);

/** Records an attempt's outcome on a delivery that is not final; false when it is final (or gone). */
export async function settleDelivery(
  db: Queryable,
  id: number,
  set: DeliveryOutcome,
  now: number,
): Promise<boolean> {
  const r = await settleDeliveryQuery(db, { ...set, id, now });
  return Number(r.numAffectedRows ?? 0) > 0;
}

/** What one outcome adds to its subscriber's delivery counters. */
export interface SubscriberOutcomeCounts {
  deliveries: number;
  delivered: number;
  hardBounced: number;
  softBounced: number;
}

const countSubscriberOutcomeQuery = precompile((db, v: SubscriberOutcomeCounts & { id: number }) =>
  db
    .updateTable('subscribers')
    .set({
      stat_deliveries: sql`stat_deliveries + ${v.deliveries}`,
      stat_delivered: sql`stat_delivered + ${v.delivered}`,
      stat_hard_bounced: sql`stat_hard_bounced + ${v.hardBounced}`,
      stat_soft_bounced: sql`stat_soft_bounced + ${v.softBounced}`,
    })
    .where('id', '=', v.id),
);

/** Adds an outcome to a subscriber's delivery counters. */
export async function countSubscriberOutcome(
  db: Queryable,
  subscriberId: number,
  counts: SubscriberOutcomeCounts,
): Promise<void> {
  await countSubscriberOutcomeQuery(db, { ...counts, id: subscriberId });
}
