/** SQL for webhook deliveries (one per endpoint and event): the per-message chain, dispatching, the attempt log, replay and upkeep. */
import { PostgresAdapter, sql, type Insertable } from 'kysely';
import type { Queryable, WebhookAttemptsTable, WebhookDeliveriesTable } from '../db/types.ts';

/** Row locks are taken on PostgreSQL only; SQLite serialises writing transactions anyway and has no FOR UPDATE. */
const locks = (db: Queryable) => db.getExecutor().adapter instanceof PostgresAdapter;

/**
 * Whether a delivery of this endpoint and message is waiting or pending. On PostgreSQL the rows found are locked, so a
 * delivery finishing at the same time either commits first (and is not found) or waits for this transaction (and then
 * sees what it adds); see releaseNext.
 */
export async function chainBusy(db: Queryable, endpointId: string, messageId: string): Promise<boolean> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('endpoint_id', '=', endpointId)
    .where('message_id', '=', messageId)
    .where('state', 'in', ['waiting', 'pending'])
    .limit(1)
    .$if(locks(db), (qb) => qb.forUpdate())
    .executeTakeFirst();
  return row !== undefined;
}

/** Whether a delivery of this endpoint and message is pending (locked on PostgreSQL, as in chainBusy). */
export async function chainPending(db: Queryable, endpointId: string, messageId: string): Promise<boolean> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('endpoint_id', '=', endpointId)
    .where('message_id', '=', messageId)
    .where('state', '=', 'pending')
    .limit(1)
    .$if(locks(db), (qb) => qb.forUpdate())
    .executeTakeFirst();
  return row !== undefined;
}

/** The oldest waiting delivery of this endpoint and message (locked on PostgreSQL). */
export async function firstWaiting(
  db: Queryable,
  endpointId: string,
  messageId: string,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('endpoint_id', '=', endpointId)
    .where('message_id', '=', messageId)
    .where('state', '=', 'waiting')
    .orderBy('id')
    .limit(1)
    .$if(locks(db), (qb) => qb.forUpdate())
    .executeTakeFirst();
  return row?.id;
}

/** Inserts a delivery; returns its id, or null when this endpoint already has a delivery of this event. */
export async function insertDelivery(
  db: Queryable,
  row: Insertable<WebhookDeliveriesTable>,
): Promise<number | null> {
  const out = await db
    .insertInto('webhook_deliveries')
    .values(row)
    .onConflict((oc) => oc.columns(['endpoint_id', 'event_id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return out?.id ?? null;
}

/** Makes a waiting delivery pending under a new dispatch number; returns the number. */
export async function markPending(db: Queryable, id: number, now: number): Promise<number> {
  const row = await db
    .updateTable('webhook_deliveries')
    .set((eb) => ({ state: 'pending', dispatch_seq: eb('dispatch_seq', '+', 1), updated_at: now }))
    .where('id', '=', id)
    .returning('dispatch_seq')
    .executeTakeFirstOrThrow();
  return row.dispatch_seq;
}

/** Everything one dispatch needs: the delivery, its endpoint, its event, and the message and recipient the event is about. */
export async function findDispatch(db: Queryable, deliveryId: number) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .innerJoin('email_events as ev', 'ev.id', 'd.event_id')
    .leftJoin('messages as m', 'm.id', 'd.message_id')
    .leftJoin('message_recipients as r', 'r.id', 'ev.recipient_id')
    .select([
      'd.id',
      'd.endpoint_id',
      'd.message_id',
      'd.event_name',
      'd.uid',
      'd.state',
      'd.dispatch_seq',
      'd.attempts',
      'e.target_url',
      'e.signing_secret',
      'e.previous_signing_secret',
      'e.active',
      'e.disabled_at',
      'ev.id as event_id',
      'ev.recipient_id',
      'ev.data as event_data',
      'ev.created_at as event_at',
      'm.header_message_id',
      'm.from_addr',
      'm.custom_headers',
      'm.content',
      'r.address as recipient_address',
    ])
    .where('d.id', '=', deliveryId)
    .executeTakeFirst();
}

/** Appends an attempt to the log. */
export async function insertAttempt(db: Queryable, row: Insertable<WebhookAttemptsTable>): Promise<void> {
  await db.insertInto('webhook_attempts').values(row).execute();
}

/**
 * Records the outcome of an attempt on a pending delivery of the given dispatch number: the attempt count and error,
 * and the final state when there is one. Returns false (changing nothing) when the delivery moved on meanwhile.
 */
export async function settleDelivery(
  db: Queryable,
  id: number,
  seq: number,
  change: {
    state: 'pending' | 'delivered' | 'failed';
    attempted: boolean;
    error: string | null;
    now: number;
  },
): Promise<boolean> {
  const res = await db
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      state: change.state,
      attempts: change.attempted ? eb('attempts', '+', 1) : eb.ref('attempts'),
      last_error: change.error,
      delivered_at: change.state === 'delivered' ? change.now : null,
      updated_at: change.now,
    }))
    .where('id', '=', id)
    .where('dispatch_seq', '=', seq)
    .where('state', '=', 'pending')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** What a replay selects: events of an account of the given kinds, by time range and/or ids, after an event id, oldest first. */
export interface ReplaySelection {
  customerId: number;
  emailEvents: string[];
  since?: number;
  until?: number;
  afterId?: number;
  eventIds?: number[];
  limit: number;
}

/** The events a replay covers. */
export async function eventsForReplay(db: Queryable, s: ReplaySelection) {
  return db
    .selectFrom('email_events')
    .select(['id', 'event', 'message_id'])
    .where('customer_id', '=', s.customerId)
    .where('event', 'in', s.emailEvents)
    .$if(s.since !== undefined, (qb) => qb.where('created_at', '>=', s.since!))
    .$if(s.until !== undefined, (qb) => qb.where('created_at', '<', s.until!))
    .$if(s.afterId !== undefined, (qb) => qb.where('id', '>', s.afterId!))
    .$if(s.eventIds !== undefined, (qb) => qb.where('id', 'in', s.eventIds!))
    .orderBy('id')
    .limit(s.limit)
    .execute();
}

/** The deliveries an endpoint already has of the given events. */
export async function deliveriesOfEvents(db: Queryable, endpointId: string, eventIds: number[]) {
  if (eventIds.length === 0) return [];
  return db
    .selectFrom('webhook_deliveries')
    .select(['id', 'event_id', 'state'])
    .where('endpoint_id', '=', endpointId)
    .where('event_id', 'in', eventIds)
    .execute();
}

/** Puts finished deliveries back in line to be posted again (same Sealpost-Event-Id). */
export async function requeueDeliveries(db: Queryable, ids: number[], now: number): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('webhook_deliveries')
    .set({ state: 'waiting', last_error: null, delivered_at: null, updated_at: now })
    .where('id', 'in', ids)
    .where('state', 'in', ['delivered', 'failed'])
    .execute();
}

/**
 * Pending deliveries last changed before `before` whose work row is gone or finished: they would otherwise block
 * their message's later events for good.
 */
export async function orphanedPending(db: Queryable, before: number, limit: number) {
  return db
    .selectFrom('webhook_deliveries as d')
    .leftJoin('jobs as j', (join) =>
      join.onRef(
        'j.unique_key',
        '=',
        sql<string>`${sql.lit('webhook:')} || cast(d.id as text) || ':' || cast(d.dispatch_seq as text)`,
      ),
    )
    .select(['d.id', 'd.endpoint_id', 'd.message_id', 'd.dispatch_seq'])
    .where('d.state', '=', 'pending')
    .where('d.updated_at', '<', before)
    .where((eb) => eb.or([eb('j.id', 'is', null), eb('j.state', 'in', ['done', 'failed'])]))
    .limit(limit)
    .execute();
}

/** (endpoint, message) pairs with a delivery waiting since before `before`. */
export async function staleWaiting(db: Queryable, before: number, limit: number) {
  return db
    .selectFrom('webhook_deliveries')
    .select(['endpoint_id', 'message_id'])
    .distinct()
    .where('state', '=', 'waiting')
    .where('updated_at', '<', before)
    .limit(limit)
    .execute();
}

/** Deletes deliveries (and their attempts) that finished before `before`; returns how many. */
export async function pruneFinishedDeliveries(db: Queryable, before: number): Promise<number> {
  const res = await db
    .deleteFrom('webhook_deliveries')
    .where('state', 'in', ['delivered', 'failed'])
    .where('updated_at', '<', before)
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}
