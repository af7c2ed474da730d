/** SQL of the overview's figures: counts over a time range, each served by an index on (customer_id, created_at). */
import { sql } from 'kysely';
import type { Queryable } from '../db/types.ts';

/** Messages accepted in [from, to). */
export async function countAccepted(
  db: Queryable,
  customerId: number,
  from: number,
  to: number,
): Promise<number> {
  const row = await db
    .selectFrom('messages')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('customer_id', '=', customerId)
    .where('created_at', '>=', from)
    .where('created_at', '<', to)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Events by name in [from, to). */
export async function countEvents(
  db: Queryable,
  customerId: number,
  from: number,
  to: number,
): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('email_events')
    .select(['event', (eb) => eb.fn.countAll<number | string>().as('n')])
    .where('customer_id', '=', customerId)
    .where('created_at', '>=', from)
    .where('created_at', '<', to)
    .groupBy('event')
    .execute();
  return new Map(rows.map((r) => [r.event, Number(r.n)]));
}

/** Recipients still waiting (queued or deferred) and when the oldest unfinished message was accepted. */
export async function queueState(
  db: Queryable,
  customerId: number,
): Promise<{ waiting: number; oldest: number | null }> {
  const row = await db
    .selectFrom('messages')
    .select([
      sql<number | string | null>`sum(pending_count)`.as('waiting'),
      (eb) => eb.fn.min('created_at').as('oldest'),
    ])
    .where('finished_at', 'is', null)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
  return { waiting: Number(row?.waiting ?? 0), oldest: row?.oldest == null ? null : Number(row.oldest) };
}

/** Webhook endpoints that are disabled or failing now. */
export async function failingEndpoints(db: Queryable, customerId: number) {
  return db
    .selectFrom('webhook_endpoints')
    .select(['id', 'target_url', 'failure_streak', 'streak_started_at', 'disabled_at', 'disabled_reason'])
    .where('customer_id', '=', customerId)
    .where((eb) => eb.or([eb('failure_streak', '>', 0), eb('disabled_at', 'is not', null)]))
    .orderBy('created_at')
    .execute();
}
