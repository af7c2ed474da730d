/** The overview's figures for an account: today and the last 7 days by day, the delivery queue, failing webhook endpoints. */
import type { AppContext } from '../context.ts';
import { countAccepted, countEvents, failingEndpoints, queueState } from './stats.repository.ts';

const DAY = 86_400_000;

/** One period's counts. */
export interface PeriodCounts {
  accepted: number;
  delivered: number;
  deferred: number;
  bounced: number;
  opened: number;
  clicked: number;
}

async function period(ctx: AppContext, customerId: number, from: number, to: number): Promise<PeriodCounts> {
  const db = ctx.database.reader;
  const [accepted, events] = await Promise.all([
    countAccepted(db, customerId, from, to),
    countEvents(db, customerId, from, to),
  ]);
  return {
    accepted,
    delivered: events.get('delivered') ?? 0,
    deferred: events.get('temporary_failure') ?? 0,
    bounced: events.get('permanent_failure') ?? 0,
    opened: events.get('opened') ?? 0,
    clicked: events.get('clicked') ?? 0,
  };
}

/** Today (UTC), each of the last 7 days, their sum, the queue and failing endpoints. */
export async function accountOverview(ctx: AppContext, customerId: number, now = Date.now()) {
  const today = Math.floor(now / DAY) * DAY;
  const days: { start: number; counts: PeriodCounts }[] = [];
  for (let i = 6; i >= 0; i--) {
    const start = today - i * DAY;
    days.push({ start, counts: await period(ctx, customerId, start, start + DAY) });
  }
  const week = days.reduce<PeriodCounts>(
    (sum, d) => {
      for (const k of Object.keys(sum) as (keyof PeriodCounts)[]) sum[k] += d.counts[k];
      return sum;
    },
    { accepted: 0, delivered: 0, deferred: 0, bounced: 0, opened: 0, clicked: 0 },
  );
  const [queue, failing] = await Promise.all([
    queueState(ctx.database.reader, customerId),
    failingEndpoints(ctx.database.reader, customerId),
  ]);
  return {
    today: days.at(-1)!.counts,
    week,
    days,
    queue: { ...queue, oldestAgeMs: queue.oldest === null ? null : now - queue.oldest },
    failing,
  };
}
