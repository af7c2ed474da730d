/**
 * The webhook outbox: turning an appended email event into deliveries, inside the transaction that appended it, and
 * keeping each message's deliveries to one endpoint in line.
 *
 * Ordering: per endpoint, the deliveries of one message form a chain. At most one of them is `pending` (has a work row)
 * at a time; later ones are `waiting` and the next is made pending, in the same transaction, when the one before it is
 * delivered or finally fails. On PostgreSQL the chain's rows are locked while this is decided, so a delivery finishing
 * concurrently with a new one being added either commits first (and the new one goes straight out) or waits for the
 * addition (and then sees it); neither can strand a waiting delivery.
 */
import { randomUUID } from 'node:crypto';
import type { Insertable } from 'kysely';
import type { EmailEventsTable, Queryable } from '../db/types.ts';
import { enqueueJob } from '../jobs/jobs.repository.ts';
import { webhookEventOf } from './events.ts';
import { receivingEndpoints } from './webhooks.repository.ts';
import { insertEventRow } from './events.repository.ts';
import {
  chainBusy,
  chainPending,
  firstWaiting,
  insertDelivery,
  markPending,
} from './deliveries.repository.ts';

/** The work-row queue of webhook deliveries. */
export const WEBHOOK_QUEUE = 'webhooks';

/** The payload of a webhook work row: a delivery and its dispatch number (a row for an older number is stale). */
export interface WebhookJob {
  deliveryId: number;
  seq: number;
}

/** An appended email event, as the outbox needs it. */
export interface AppendedEvent {
  id: number;
  customer_id: number;
  message_id: string;
  event: string;
}

/**
 * Appends an email event and, in the same transaction, the webhook deliveries it causes. Every event is appended
 * through here (delivery outcomes, opens, clicks). Returns the event's id.
 */
export async function appendEvent(db: Queryable, row: Insertable<EmailEventsTable>): Promise<number> {
  const id = await insertEventRow(db, row);
  await fanOutEvent(db, { id, customer_id: row.customer_id, message_id: row.message_id, event: row.event });
  return id;
}

/** The unique key of the work row of one dispatch of a delivery. */
export const webhookJobKey = (deliveryId: number, seq: number) => `webhook:${deliveryId}:${seq}`;

async function enqueueDispatch(db: Queryable, deliveryId: number, seq: number, now: number): Promise<void> {
  const payload: WebhookJob = { deliveryId, seq };
  await enqueueJob(
    db,
    { queue: WEBHOOK_QUEUE, payload, runAt: now, uniqueKey: webhookJobKey(deliveryId, seq) },
    now,
  );
}

/**
 * Creates the deliveries an email event causes: one per endpoint of the account that is active, not disabled and
 * subscribed to the event's name. Call it in the transaction that appends the event. An event that is never pushed
 * (clicks) costs nothing; an account without endpoints costs one indexed query. Returns how many deliveries were made.
 */
export async function fanOutEvent(db: Queryable, event: AppendedEvent, now = Date.now()): Promise<number> {
  const name = webhookEventOf(event.event);
  if (!name) return 0;
  const endpoints = await receivingEndpoints(db, event.customer_id);
  let made = 0;
  for (const endpoint of endpoints) {
    if (!endpoint.events.split(',').includes(name)) continue;
    const busy = await chainBusy(db, endpoint.id, event.message_id);
    const id = await insertDelivery(db, {
      endpoint_id: endpoint.id,
      customer_id: event.customer_id,
      event_id: event.id,
      event_name: name,
      message_id: event.message_id,
      uid: randomUUID(),
      state: busy ? 'waiting' : 'pending',
      dispatch_seq: busy ? 0 : 1,
      created_at: now,
      updated_at: now,
    });
    if (id === null) continue;
    if (!busy) await enqueueDispatch(db, id, 1, now);
    made++;
  }
  return made;
}

/** Makes the next waiting delivery of this endpoint and message pending, unless one is pending already. */
export async function releaseNext(
  db: Queryable,
  endpointId: string,
  messageId: string,
  now = Date.now(),
): Promise<void> {
  if (await chainPending(db, endpointId, messageId)) return;
  const next = await firstWaiting(db, endpointId, messageId);
  if (next === undefined) return;
  const seq = await markPending(db, next, now);
  await enqueueDispatch(db, next, seq, now);
}
