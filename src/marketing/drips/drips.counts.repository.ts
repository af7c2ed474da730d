/** SQL of a drip's figures per node: enrollments waiting at or finished at each node, and emails sent by each step. */
import type { Queryable } from '../../db/types.ts';

/** Enrollments of a drip by the node they are at (or finished at) and their state. */
export async function enrollmentsPerNode(
  db: Queryable,
  dripId: number,
): Promise<{ node_id: string; state: string; n: number }[]> {
  const rows = await db
    .selectFrom('drip_enrollments')
    .select(['node_id', 'state', (eb) => eb.fn.countAll<number>().as('n')])
    .where('drip_campaign_id', '=', dripId)
    .groupBy(['node_id', 'state'])
    .execute();
  return rows.map((r) => ({ node_id: r.node_id, state: r.state, n: Number(r.n) }));
}

/** Stopped enrollments of a drip by the reason they stopped. */
export async function stopsByReason(db: Queryable, dripId: number): Promise<{ reason: string; n: number }[]> {
  const rows = await db
    .selectFrom('drip_enrollments')
    .select(['stop_reason', (eb) => eb.fn.countAll<number>().as('n')])
    .where('drip_campaign_id', '=', dripId)
    .where('state', '=', 'stopped')
    .groupBy('stop_reason')
    .orderBy('stop_reason')
    .execute();
  return rows.map((r) => ({ reason: r.stop_reason ?? 'unknown', n: Number(r.n) }));
}

/** Emails made by each email step of a drip. */
export async function emailsPerNode(db: Queryable, dripId: number): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('marketing_deliveries as d')
    .innerJoin('drip_enrollments as e', 'e.id', 'd.drip_enrollment_id')
    .select(['d.drip_node_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('e.drip_campaign_id', '=', dripId)
    .groupBy('d.drip_node_id')
    .execute();
  return new Map(rows.map((r) => [r.drip_node_id ?? '', Number(r.n)]));
}

/** The subjects of the account's mailings among `ids`. */
export async function mailingSubjects(
  db: Queryable,
  customerId: number,
  ids: number[],
): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('campaign_mailings')
    .select(['id', 'subject'])
    .where('customer_id', '=', customerId)
    .where('id', 'in', ids)
    .execute();
  return new Map(rows.map((r) => [Number(r.id), r.subject]));
}
