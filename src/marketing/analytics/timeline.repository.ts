/**
 * SQL of a send's engagement over time: first opens and first clicks of its emails counted per hour since the send
 * started, and the people behind each link. The database groups; at most one row per hour comes back, so a send of
 * 100,000 emails reads as a few dozen rows.
 */
import { sql } from 'kysely';
import type { Queryable } from '../../db/types.ts';

/** How many emails of a send had their first open (or first click) in each hour after `startedAt`. */
export async function hourlyFirsts(
  db: Queryable,
  sendId: number,
  startedAt: number,
  what: 'open' | 'click',
): Promise<{ hour: number; n: number }[]> {
  const firsts =
    what === 'open'
      ? sql`select first_opened_at as at from marketing_deliveries
            where send_id = ${sendId} and first_opened_at is not null`
      : sql`select min(first_clicked_at) as at from marketing_link_clicks
            where send_id = ${sendId} group by delivery_id`;
  // An integer literal, so both databases divide integers (a bound number may arrive as a float or a numeric).
  const start = sql.lit(Math.trunc(startedAt));
  const { rows } = await sql<{ hour: number | string; n: number | string }>`
    select h.hour as hour, count(*) as n
    from (select case when f.at < ${start} then 0 else (f.at - ${start}) / 3600000 end as hour
          from (${firsts}) f) h
    group by h.hour
    order by h.hour`.execute(db);
  return rows.map((r) => ({ hour: Number(r.hour), n: Number(r.n) }));
}

/** How many emails of a send had each of its links clicked (people, not clicks). */
export async function clickersPerLink(db: Queryable, sendId: number): Promise<Map<number, number>> {
  const rows = await db
    .selectFrom('marketing_link_clicks')
    .select(['html_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('send_id', '=', sendId)
    .groupBy('html_id')
    .execute();
  return new Map(rows.map((r) => [Number(r.html_id), Number(r.n)]));
}
