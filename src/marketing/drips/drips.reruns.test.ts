/**
 * Drip background work and re-runs: the scheduler task and queues that run drips, and a step row run twice sending
 * its email once.
 */
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../test/wait.ts';
import { makeSubscriber } from '../marketing.test-support.ts';
import { dripRunTestBed } from './drips.test-support.ts';
import { runDripStep } from './drips.engine.ts';
import { periodicTasks, queueHandlers } from '../../app/workers.ts';

const {
  t,
  call,
  mailings,
  clock,
  currentWorker,
  startWorker,
  enrollPass,
  enrollment,
  waitForEnrollment,
  deliveriesOf,
  startedDrip,
} = dripRunTestBed();

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
    expect(row.lease_owner).toBe(currentWorker()!.owner);
    await waitForEnrollment(drip, sub, { node: 'check' });
    expect(await deliveriesOf(sub)).toEqual([['welcome', mailings[0]]]);
  });
});
