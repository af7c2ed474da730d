/**
 * Drip background work and re-runs: the scheduler task and queues that run drips, and a step row run twice sending
 * its email once.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { waitFor } from '../../test/wait.ts';
import { createWorker, type Worker } from '../../jobs/worker.ts';
import { keyOf, makeList, makeSubscriber, marketingClient } from '../marketing.test-support.ts';
import { branchingGraph, dripDeliveriesOf, makeDrip, storeMailing } from './drips.test-support.ts';
import { dripQueues, runDripStep } from './drips.engine.ts';
import { dripTasks } from './drips.enroll.ts';
import { periodicTasks, queueHandlers } from '../../app/workers.ts';

let t: TestApp;
let a: TestAccount;
let call: ReturnType<typeof marketingClient>;
let mailings: string[];
let clock: { now: number };
let worker: Worker | undefined;

beforeAll(async () => {
  t = await createTestApp({ config: { formsSubmitPerMinute: 0 } });
  a = await t.createAccount();
  call = marketingClient(t, a);
  mailings = [];
  for (const subject of ['A', 'B', 'C']) mailings.push(await storeMailing(t, a.account.customer_id, subject));
});
afterAll(() => t.close());
beforeEach(() => {
  clock = { now: Date.now() };
});
afterEach(async () => {
  await worker?.stop(5000);
  worker = undefined;
});

/** A real worker over the drip queues, on the test's clock. */
function startWorker(): void {
  worker = createWorker({
    database: t.ctx.database,
    log: t.ctx.log,
    queues: dripQueues(t.ctx, () => clock.now),
    pollMs: 20,
    leaseMs: 30_000,
    now: () => clock.now,
  });
  t.ctx.wake = (queue) => worker?.nudge(queue);
  worker.start();
}

/** The enrollment pass the scheduler leader runs, at the test's clock. */
async function enrollPass(): Promise<void> {
  await dripTasks(t.ctx)[0]!.run(clock.now);
}

async function enrollment(dripId: string, subscriberId: string) {
  return t.ctx.database.db
    .selectFrom('drip_enrollments')
    .selectAll()
    .where('drip_campaign_id', '=', await keyOf(t, 'drip_campaigns', dripId))
    .where('subscriber_id', '=', await keyOf(t, 'subscribers', subscriberId))
    .executeTakeFirst();
}

async function waitForEnrollment(
  dripId: string,
  subscriberId: string,
  what: { node?: string; state?: string },
) {
  return waitFor(
    async () => {
      const e = await enrollment(dripId, subscriberId);
      return e &&
        (what.node === undefined || e.node_id === what.node) &&
        (what.state === undefined || e.state === what.state)
        ? e
        : undefined;
    },
    5000,
    10,
    `enrollment ${JSON.stringify(what)}`,
  );
}

const deliveriesOf = (subscriberId: string) => dripDeliveriesOf(t, subscriberId);

/** A started drip on a new list, with the branching graph. */
async function startedDrip(condition = 'opened'): Promise<{ drip: string; list: string }> {
  const list = await makeList(call, `List ${Math.random()}`);
  const drip = await makeDrip(call, {
    name: `Drip ${Math.random()}`,
    subscription_list_id: list,
    drip_campaign_nodes: branchingGraph(mailings[0]!, mailings[1]!, mailings[2]!, { days: 2 }, condition),
  });
  expect((await call('POST', `/drip_campaigns/${drip}/start`)).statusCode).toBe(200);
  return { drip, list };
}

describe('background work', () => {
  it('is run by the worker role (step and resume queues) and the scheduler leader (enrollment)', () => {
    expect(Object.keys(queueHandlers(t.ctx))).toEqual(
      expect.arrayContaining(['marketing.drip_step', 'marketing.drip_resume']),
    );
    expect(periodicTasks(t.ctx).map((task) => task.name)).toContain('marketing.drip_enroll');
  });
});

describe('re-runs', () => {
  it('runs a step row a second time without a second email or a second move', async () => {
    const { drip, list } = await startedDrip();
    const sub = await makeSubscriber(call, `rerun-${Date.now()}@example.org`, {}, list);
    await enrollPass();
    const e = (await enrollment(drip, sub))!;
    expect(await runDripStep(t.ctx, { enrollmentId: e.id, seq: 0 }, clock.now)).toBe('advanced');
    expect(await runDripStep(t.ctx, { enrollmentId: e.id, seq: 1 }, clock.now)).toBe('advanced');

    expect(await runDripStep(t.ctx, { enrollmentId: e.id, seq: 1 }, clock.now)).toBe('stale');

    expect(await deliveriesOf(sub)).toEqual([['welcome', mailings[0]]]);
    expect(await enrollment(drip, sub)).toMatchObject({ node_id: 'pause', seq: 2 });
    const steps = await t.ctx.database.db
      .selectFrom('jobs')
      .select('unique_key')
      .where('unique_key', 'like', `drip-step:${e.id}:%`)
      .execute();
    expect(steps.map((s) => s.unique_key).sort()).toEqual([
      `drip-step:${e.id}:0`,
      `drip-step:${e.id}:1`,
      `drip-step:${e.id}:2`,
    ]);
  });

  it('finishes a step row whose worker died after the step committed, without sending again', async () => {
    const { drip, list } = await startedDrip();
    const sub = await makeSubscriber(call, `crash-${Date.now()}@example.org`, {}, list);
    await enrollPass();
    const e = (await enrollment(drip, sub))!;
    await runDripStep(t.ctx, { enrollmentId: e.id, seq: 0 }, clock.now);
    const { db } = t.ctx.database;
    const emailStep = await db
      .selectFrom('jobs')
      .selectAll()
      .where('unique_key', '=', `drip-step:${e.id}:1`)
      .executeTakeFirstOrThrow();
    // The email step commits, then its worker dies holding the row: the row stays running with a lease that lapses.
    await runDripStep(t.ctx, { enrollmentId: e.id, seq: 1 }, clock.now);
    await db
      .updateTable('jobs')
      .set({ state: 'running', lease_owner: 'dead-worker', lease_until: clock.now - 1, attempts: 1 })
      .where('id', '=', emailStep.id)
      .execute();

    startWorker();

    await waitFor(
      async () =>
        (await db.selectFrom('jobs').select('state').where('id', '=', emailStep.id).executeTakeFirstOrThrow())
          .state === 'done',
      5000,
      10,
      'the re-claimed row done',
    );
    const row = await db
      .selectFrom('jobs')
      .select(['attempts', 'lease_owner'])
      .where('id', '=', emailStep.id)
      .executeTakeFirstOrThrow();
    expect(row.attempts).toBe(2);
    expect(row.lease_owner).toBe(worker!.owner);
    await waitForEnrollment(drip, sub, { node: 'check' });
    expect(await deliveriesOf(sub)).toEqual([['welcome', mailings[0]]]);
  });
});
