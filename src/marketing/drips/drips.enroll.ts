/**
 * Enrollment: a periodic task of the scheduler leader that enrolls, in every active drip, the subscribers who joined
 * its list (trigger `subscription`) or submitted its form (trigger `form_submission`) since the drip's watermark.
 * Nothing else has to call it: it reads memberships and submissions as they are stored. Each pass looks back
 * LOOKBACK_MS before the watermark (a membership whose transaction committed late is still seen), and enrolling is
 * INSERT ... ON CONFLICT DO NOTHING on (drip, subscriber), so looking twice enrolls once. An enrollment, its counter
 * bump and its first step row commit together.
 */
import type { AppContext } from '../../context.ts';
import type { PeriodicTask } from '../../jobs/scheduler.ts';
import type { Queryable } from '../../db/types.ts';
import { respondentEmail } from '../subscribers/form-respondents.ts';
import { openSubmission } from '../../forms/submissions/submissions.service.ts';
import { findByEmailKey } from '../subscribers/rows.service.ts';
import { parseGraph } from './drips.graph.ts';
import {
  activeDrips,
  bumpDripCounters,
  insertEnrollments,
  newMembers,
  submissionsSince,
  updateDrip,
  type DripRow,
} from './drips.repository.ts';
import { subscriberStanding } from './drips.standing.ts';
import { DRIP_STEP_QUEUE, enqueueStep } from './drips.engine.ts';

/** How often the leader looks for new subscribers to enroll. */
export const ENROLL_EVERY_MS = 10_000;
/** How far before the watermark each pass looks again. */
export const LOOKBACK_MS = 5 * 60_000;
/** A submission whose respondent is not a subscriber yet holds the watermark back this long (the form's worker adds them). */
export const RESPONDENT_WAIT_MS = 60 * 60_000;
const BATCH = 500;

/** The scheduler task that enrolls new subscribers in active drips. */
export function dripTasks(ctx: AppContext): PeriodicTask[] {
  return [
    {
      name: 'marketing.drip_enroll',
      everyMs: ENROLL_EVERY_MS,
      run: async (now) => void (await enrollNew(ctx, now)),
    },
  ];
}

/** One enrollment pass over every active drip; returns how many enrollments it created. */
export async function enrollNew(ctx: AppContext, now: number): Promise<number> {
  let total = 0;
  for (const drip of await activeDrips(ctx.database.db)) {
    try {
      total +=
        drip.start_trigger === 'form_submission'
          ? await enrollRespondents(ctx, drip, now)
          : await enrollMembers(ctx, drip, now);
    } catch (err) {
      ctx.log.error({ err, dripId: drip.id }, 'drip enrollment failed; the next pass tries again');
    }
  }
  return total;
}

/** Trigger `subscription`: subscribed members who joined the list since the watermark (and after the first start). */
async function enrollMembers(ctx: AppContext, drip: DripRow, now: number): Promise<number> {
  const { db } = ctx.database;
  if (drip.subscription_list_id === null) return 0;
  const from = lookFrom(drip);
  let total = 0;
  for (;;) {
    const ids = await newMembers(db, drip, drip.subscription_list_id, from, BATCH);
    if (ids.length === 0) break;
    total += await enroll(ctx, drip, ids, now);
    if (ids.length < BATCH) break;
  }
  await updateDrip(db, drip.id, { enroll_watermark: now });
  return total;
}

/**
 * Trigger `form_submission`: respondents of the form's submissions since the watermark, once the form's worker made them
 * subscribers of the list. A submission whose respondent is not a subscriber yet keeps the watermark at it for a while.
 */
async function enrollRespondents(ctx: AppContext, drip: DripRow, now: number): Promise<number> {
  const { db, reader } = ctx.database;
  if (drip.form_id === null || drip.subscription_list_id === null) return 0;
  const from = lookFrom(drip);
  let watermark = now;
  let total = 0;
  let after: { at: number; id: string } | null = null;
  for (;;) {
    const rows = await submissionsSince(reader, drip.form_id, from, after, BATCH);
    const ready: number[] = [];
    for (const row of rows) {
      const email = respondentEmail(openSubmission(ctx, row).form_data);
      const subscriber = email
        ? await findByEmailKey(reader, drip.customer_id, email.trim().toLowerCase())
        : undefined;
      if (subscriber) {
        if ((await subscriberStanding(reader, subscriber.id, drip.subscription_list_id))?.subscribed)
          ready.push(subscriber.id);
      } else if (email && row.created_at > now - RESPONDENT_WAIT_MS)
        watermark = Math.min(watermark, row.created_at);
    }
    total += await enroll(ctx, drip, [...new Set(ready)], now);
    if (rows.length < BATCH) break;
    const last = rows[rows.length - 1]!;
    after = { at: last.created_at, id: last.id };
  }
  await updateDrip(db, drip.id, { enroll_watermark: watermark });
  return total;
}

/** Enrolls subscribers at the start node with their first step rows and the counter, in one transaction. */
async function enroll(ctx: AppContext, drip: DripRow, subscriberIds: number[], now: number): Promise<number> {
  const startId = parseGraph(drip.nodes).startId;
  if (startId === null || subscriberIds.length === 0) return 0;
  const created = await ctx.database.db.transaction().execute(async (trx: Queryable) => {
    const ids = await insertEnrollments(trx, drip, startId, subscriberIds, now);
    for (const id of ids) await enqueueStep(trx, id, 0, now, now);
    if (ids.length > 0) await bumpDripCounters(trx, drip.id, ids.length, 0);
    return ids.length;
  });
  if (created > 0) ctx.wake(DRIP_STEP_QUEUE);
  return created;
}

/** Memberships and submissions at or after this instant are looked at: the first start, or the watermark less the lookback. */
function lookFrom(drip: DripRow): number {
  const started = Number(drip.started_at ?? 0);
  return drip.enroll_watermark === null
    ? started
    : Math.max(started, Number(drip.enroll_watermark) - LOOKBACK_MS);
}
