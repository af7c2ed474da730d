/** SQL for webhook endpoints: the endpoints, their run of failures, and reading their attempt log. */
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Queryable, WebhookEndpointsTable } from '../db/types.ts';
import { precompile } from '../db/precompiled.ts';

export type EndpointRow = Selectable<WebhookEndpointsTable>;

/** Inserts an endpoint. */
export async function insertEndpoint(db: Queryable, row: Insertable<WebhookEndpointsTable>): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute();
}

/** The endpoints of an account, oldest first. */
export async function listEndpoints(db: Queryable, customerId: number): Promise<EndpointRow[]> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('customer_id', '=', customerId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** One endpoint of an account (another account's endpoint is not found either). */
export async function findEndpoint(
  db: Queryable,
  customerId: number,
  id: string,
): Promise<EndpointRow | undefined> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', id)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
}

/** One endpoint by id, whatever its account (the command line). */
export async function findEndpointById(db: Queryable, id: string): Promise<EndpointRow | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Changes an endpoint. */
export async function updateEndpoint(
  db: Queryable,
  id: string,
  patch: Updateable<WebhookEndpointsTable>,
): Promise<void> {
  await db.updateTable('webhook_endpoints').set(patch).where('id', '=', id).execute();
}

/** Deletes an endpoint with its deliveries and their attempts. */
export async function deleteEndpoint(db: Queryable, id: string): Promise<void> {
  await db.deleteFrom('webhook_endpoints').where('id', '=', id).execute();
}

/** The endpoints of an account that take new deliveries: active and not disabled. One indexed query. */
export async function receivingEndpoints(
  db: Queryable,
  customerId: number,
): Promise<{ id: string; events: string }[]> {
  return (await receivingEndpointsQuery(db, { customerId })).rows;
}

// Asked for every event appended (each delivery outcome), so compiled once (see db/precompiled.ts).
const receivingEndpointsQuery = precompile((db, v: { customerId: number }) =>
  db
    .selectFrom('webhook_endpoints')
    .select(['id', 'events'])
    .where('customer_id', '=', v.customerId)
    .where('active', '=', 1)
    .where('disabled_at', 'is', null),
);

/** Ends an endpoint's run of failures (a no-op, without a write, when there is none). */
export async function resetStreak(db: Queryable, endpointId: string, now: number): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ failure_streak: 0, streak_started_at: null, updated_at: now })
    .where('id', '=', endpointId)
    .where('failure_streak', '>', 0)
    .execute();
}

/** Counts one more failed attempt of an endpoint; returns the run's length and start. */
export async function bumpStreak(
  db: Queryable,
  endpointId: string,
  now: number,
): Promise<{ streak: number; since: number }> {
  const row = await db
    .updateTable('webhook_endpoints')
    .set((eb) => ({
      failure_streak: eb('failure_streak', '+', 1),
      streak_started_at: eb.fn.coalesce('streak_started_at', eb.val(now)),
    }))
    .where('id', '=', endpointId)
    .returning(['failure_streak', 'streak_started_at'])
    .executeTakeFirst();
  return { streak: row?.failure_streak ?? 0, since: Number(row?.streak_started_at ?? now) };
}

/** Disables an endpoint that is not disabled yet; returns whether this call disabled it. */
export async function disableEndpoint(
  db: Queryable,
  endpointId: string,
  reason: string,
  now: number,
): Promise<boolean> {
  const res = await db
    .updateTable('webhook_endpoints')
    .set({ disabled_at: now, disabled_reason: reason, updated_at: now })
    .where('id', '=', endpointId)
    .where('disabled_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** The newest attempts of an endpoint, with the delivery and event each belongs to. */
export async function listAttempts(db: Queryable, endpointId: string, limit: number) {
  return db
    .selectFrom('webhook_attempts as a')
    .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .select([
      'a.id',
      'a.attempt',
      'a.status_code',
      'a.latency_ms',
      'a.response_excerpt',
      'a.error',
      'a.created_at',
      'd.uid',
      'd.event_id',
      'd.event_name',
      'd.message_id',
      'd.state',
    ])
    .where('a.endpoint_id', '=', endpointId)
    .orderBy('a.id', 'desc')
    .limit(limit)
    .execute();
}
