/**
 * The drip engine: one work row per enrollment step on the `marketing.drip_step` queue, and one per start on
 * `marketing.drip_resume`. A step runs the node the enrollment is at (send an email, wait, branch, finish) and moves
 * the enrollment to the next node in the same transaction that records the step's effect and enqueues the next step,
 * so a crash between them replays the step or nothing. Each step row names the enrollment's step sequence; a row whose
 * sequence is no longer the enrollment's (it ran already) does nothing, and the next row's unique key keeps a re-run
 * from enqueueing twice. A step that finds its drip not active parks the enrollment; a start resumes parked ones.
 */
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/types.ts';
import { enqueueJob } from '../../jobs/jobs.repository.ts';
import type { QueueSpec } from '../../jobs/worker.ts';
import { pipelineMetrics } from '../../http/pipeline-metrics.ts';
import {
  deliveryEngagement,
  enqueueDripDelivery,
  MARKETING_DELIVERY_QUEUE,
} from '../deliveries/deliveries.service.ts';
import { parseGraph, type DripNode, type DripGraph } from './drips.graph.ts';
import {
  accountMailingIds,
  bumpDripCounters,
  findDripById,
  lockEnrollment,
  moveEnrollment,
  parkedEnrollments,
  RESUME_BATCH,
  type DripRow,
  type EnrollmentRow,
} from './drips.repository.ts';
import { subscriberStanding } from './drips.standing.ts';

/** The queue of enrollment steps. */
export const DRIP_STEP_QUEUE = 'marketing.drip_step';
/** The queue that resumes a started drip's parked enrollments. */
export const DRIP_RESUME_QUEUE = 'marketing.drip_resume';

/** Payload of a step row: run step `seq` of the enrollment. */
export interface DripStepJob {
  enrollmentId: number;
  seq: number;
}

/** Payload of a resume row. */
export interface DripResumeJob {
  dripId: number;
}

/** What a step did, for logs and tests. */
export type StepOutcome = 'advanced' | 'completed' | 'parked' | 'stopped' | 'stale';

/** The drip queues of the worker role; `now` is the clock steps and waits are measured by. */
export function dripQueues(ctx: AppContext, now: () => number = Date.now): Record<string, QueueSpec> {
  return {
    [DRIP_STEP_QUEUE]: {
      handler: async (job) => void (await runDripStep(ctx, job.data as DripStepJob, now())),
      concurrency: 4,
    },
    [DRIP_RESUME_QUEUE]: {
      handler: (job) => resumeDrip(ctx, (job.data as DripResumeJob).dripId, now()),
      concurrency: 1,
    },
  };
}

/** Enqueues step `seq` of an enrollment to run at `runAt` (at most once per enrollment and sequence). */
export async function enqueueStep(
  db: Queryable,
  enrollmentId: number,
  seq: number,
  runAt: number,
  now: number,
): Promise<void> {
  await enqueueJob(
    db,
    {
      queue: DRIP_STEP_QUEUE,
      payload: { enrollmentId, seq } satisfies DripStepJob,
      runAt,
      uniqueKey: `drip-step:${enrollmentId}:${seq}`,
    },
    now,
  );
}

/** Runs one step of an enrollment in one transaction; returns what it did. */
export async function runDripStep(ctx: AppContext, job: DripStepJob, now: number): Promise<StepOutcome> {
  const { db, dialect } = ctx.database;
  const wakes = new Set<string>();
  const accepted = { count: 0 };
  const outcome = await db.transaction().execute(async (trx): Promise<StepOutcome> => {
    const e = await lockEnrollment(trx, job.enrollmentId, dialect === 'postgres');
    if (!e || e.seq !== job.seq || e.state !== 'active') return 'stale';
    const drip = await findDripById(trx, e.drip_campaign_id);
    if (!drip) return 'stale';
    if (drip.state !== 'active') return settle(trx, e, { state: 'parked', updated_at: now }, 'parked');
    const graph = parseGraph(drip.nodes);
    const node = graph.nodes.get(e.node_id);
    if (!node) return stop(trx, e, 'node_removed', now);
    const standing = await subscriberStanding(trx, e.subscriber_id, drip.subscription_list_id);
    if (!standing) return stop(trx, e, 'subscriber_gone', now);
    if (!standing.subscribed) return stop(trx, e, 'unsubscribed', now);
    return runNode(trx, { drip, graph, node, e, email: standing.email, now, wakes, accepted });
  });
  if (accepted.count > 0) pipelineMetrics.accepted.inc({ lane: 'marketing' }, accepted.count);
  for (const q of wakes) ctx.wake(q);
  return outcome;
}

/** Moves a started drip's parked enrollments back to work, a batch per transaction, while the drip stays active. */
export async function resumeDrip(ctx: AppContext, dripId: number, now: number): Promise<void> {
  const { db } = ctx.database;
  for (;;) {
    const drip = await findDripById(db, dripId);
    if (!drip || drip.state !== 'active') return;
    const batch = await parkedEnrollments(db, dripId, RESUME_BATCH);
    if (batch.length === 0) return;
    await db.transaction().execute(async (trx) => {
      for (const e of batch)
        if (await moveEnrollment(trx, e.id, e.seq, { state: 'active', updated_at: now }))
          await enqueueStep(trx, e.id, e.seq + 1, now, now);
    });
    ctx.wake(DRIP_STEP_QUEUE);
  }
}

interface StepContext {
  drip: DripRow;
  graph: DripGraph;
  node: DripNode;
  e: EnrollmentRow;
  email: string;
  now: number;
  wakes: Set<string>;
  /** Deliveries the step created, counted as accepted on the marketing lane once the step committed. */
  accepted: { count: number };
}

async function runNode(trx: Queryable, s: StepContext): Promise<StepOutcome> {
  switch (s.node.type) {
    case 'start':
      return advance(trx, s, s.graph.next.get(s.node.id)!, s.now);
    case 'email':
      return sendEmail(trx, s, s.node);
    case 'wait':
      return advance(trx, s, s.graph.next.get(s.node.id)!, s.now + s.node.ms);
    case 'condition':
      return branch(trx, s, s.node);
    case 'end': {
      await settle(trx, s.e, { state: 'completed', finished_at: s.now, updated_at: s.now }, 'completed');
      await bumpDripCounters(trx, s.drip.id, 0, 1);
      return 'completed';
    }
  }
}

/** Creates the email's delivery (once per enrollment and node) and moves on; a mailing deleted since is skipped. */
async function sendEmail(
  trx: Queryable,
  s: StepContext,
  node: Extract<DripNode, { type: 'email' }>,
): Promise<StepOutcome> {
  const mailingId = (await accountMailingIds(trx, s.drip.customer_id, [node.campaign_mailing_id])).get(
    node.campaign_mailing_id,
  );
  let deliveryId = s.e.last_delivery_id;
  if (mailingId !== undefined) {
    const delivery = await enqueueDripDelivery(
      trx,
      {
        customerId: s.drip.customer_id,
        campaignMailingId: mailingId,
        dripEnrollmentId: s.e.id,
        dripNodeId: node.id,
        subscriberId: s.e.subscriber_id,
        email: s.email,
      },
      s.now,
    );
    deliveryId = delivery.id;
    if (delivery.created) s.accepted.count++;
    s.wakes.add(MARKETING_DELIVERY_QUEUE);
  }
  return advance(trx, s, s.graph.next.get(node.id)!, s.now, deliveryId);
}

/** Follows the yes edge when the last email step's delivery was opened (or clicked), else the no edge. */
async function branch(
  trx: Queryable,
  s: StepContext,
  node: Extract<DripNode, { type: 'condition' }>,
): Promise<StepOutcome> {
  const seen =
    s.e.last_delivery_id === null ? undefined : await deliveryEngagement(trx, s.e.last_delivery_id);
  const yes =
    seen !== undefined && (node.condition === 'opened' ? seen.opened || seen.clicked : seen.clicked);
  const edges = s.graph.branches.get(node.id)!;
  return advance(trx, s, yes ? edges.yes : edges.no, s.now);
}

async function advance(
  trx: Queryable,
  s: StepContext,
  nextId: string,
  runAt: number,
  deliveryId = s.e.last_delivery_id,
): Promise<StepOutcome> {
  await settle(trx, s.e, { node_id: nextId, last_delivery_id: deliveryId, updated_at: s.now }, 'advanced');
  await enqueueStep(trx, s.e.id, s.e.seq + 1, runAt, s.now);
  if (runAt <= s.now) s.wakes.add(DRIP_STEP_QUEUE);
  return 'advanced';
}

function stop(trx: Queryable, e: EnrollmentRow, reason: string, now: number): Promise<StepOutcome> {
  return settle(
    trx,
    e,
    { state: 'stopped', stop_reason: reason, finished_at: now, updated_at: now },
    'stopped',
  );
}

/** Moves the enrollment past its step; a concurrent run that moved it first makes this one roll back. */
async function settle<T extends StepOutcome>(
  trx: Queryable,
  e: EnrollmentRow,
  set: Parameters<typeof moveEnrollment>[3],
  outcome: T,
): Promise<T> {
  if (!(await moveEnrollment(trx, e.id, e.seq, set)))
    throw new Error(`drip enrollment ${e.id} moved past step ${e.seq} by another run`);
  return outcome;
}
