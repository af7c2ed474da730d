/** The scheduler: periodic tasks run on the elected leader only, at most once per interval. */
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../test/harness.ts';
import { waitFor } from '../test/wait.ts';
import { createLeaderElector } from './leader.ts';
import { noLeader } from './leader.test-support.ts';
import { createScheduler, type PeriodicTask, type Scheduler } from './scheduler.ts';

let t: TestContext;
let schedulers: Scheduler[];

// One database per file (creating one per test is slow on PostgreSQL); every test starts with nobody leading.
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());
beforeEach(async () => {
  await waitFor(() => noLeader(t.ctx.database), 2000, 5, 'previous leader gone');
  schedulers = [];
});
afterEach(async () => {
  await Promise.all(schedulers.map((s) => s.stop()));
});

/** A scheduler over a started elector of its own, ticked by hand; `clock.now` is the time it sees. */
async function scheduler(owner: string, tasks: PeriodicTask[], clock = { now: 0 }): Promise<Scheduler> {
  const elector = createLeaderElector(t.ctx.database, owner, t.ctx.log, 100);
  await elector.start();
  const s = createScheduler({ elector, tasks, log: t.ctx.log, now: () => clock.now });
  schedulers.push(s);
  return s;
}

function countingTask(everyMs: number): PeriodicTask & { runs: number[] } {
  const runs: number[] = [];
  return { name: 'count', everyMs, runs, run: async (now) => void runs.push(now) };
}

it('runs a periodic task on the leader only', async () => {
  const onA = countingTask(1000);
  const onB = countingTask(1000);
  const a = await scheduler('a', [onA]);
  const b = await scheduler('b', [onB]);

  await a.tick();
  await b.tick();

  expect([onA.runs.length, onB.runs.length]).toEqual([1, 0]);
});

it('runs a task no more often than its interval', async () => {
  const clock = { now: 10_000 };
  const task = countingTask(1000);
  const s = await scheduler('a', [task], clock);

  for (const now of [10_000, 10_500, 10_999, 11_000, 11_001, 11_999, 12_000]) {
    clock.now = now;
    await s.tick();
  }

  expect(task.runs).toEqual([10_000, 11_000, 12_000]);
});

it('keeps running the other tasks when one task throws', async () => {
  const after = countingTask(1000);
  const failing: PeriodicTask = {
    name: 'failing',
    everyMs: 1000,
    run: async () => {
      throw new Error('boom');
    },
  };
  const s = await scheduler('a', [failing, { ...after, name: 'after' }]);

  await s.tick();

  expect(after.runs).toHaveLength(1);
});

it('ticks on its own every tickMs once started', async () => {
  let runs = 0;
  const elector = createLeaderElector(t.ctx.database, 'a', t.ctx.log, 100);
  const s = createScheduler({
    elector,
    log: t.ctx.log,
    tickMs: 10,
    tasks: [{ name: 'often', everyMs: 0, run: async () => void runs++ }],
  });
  schedulers.push(s);

  await s.start();

  await waitFor(() => runs >= 3, 2000, 5, 'three ticks');
});

it('waits in stop() for a running task to finish', async () => {
  let finished = false;
  const s = await scheduler('a', [
    {
      name: 'slow',
      everyMs: 1000,
      run: async () => {
        await new Promise((r) => setTimeout(r, 100));
        finished = true;
      },
    },
  ]);
  void s.tick();

  await s.stop();

  expect(finished).toBe(true);
});
