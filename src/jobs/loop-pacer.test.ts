/** Pacing of work rows by the event loop's lag, with a real worker over a real database. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../test/harness.ts';
import { waitFor } from '../test/wait.ts';
import { enqueueJob } from './jobs.repository.ts';
import { createLoopPacer } from './loop-pacer.ts';
import { createWorker } from './worker.ts';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

/** Holds the event loop for `ms`, as a long slice of synchronous work does. */
function hold(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('a paced worker', () => {
  it('starts no work row while the loop lags past the budget, and still runs every row', async () => {
    const budgetMs = 100;
    const pacer = createLoopPacer({ budgetMs, maxWaitMs: 30_000 });
    const lagAtStart: number[] = [];
    const worker = createWorker({
      database: t.ctx.database,
      log: t.ctx.log,
      pollMs: 20,
      leaseMs: 30_000,
      pacer,
      queues: {
        heavy: {
          concurrency: 4,
          handler: async () => {
            lagAtStart.push(pacer.lagMs());
            hold(300);
          },
        },
      },
    });
    try {
      for (let i = 0; i < 4; i++) await enqueueJob(t.ctx.database.db, { queue: 'heavy', payload: { i } });
      worker.start();
      await waitFor(async () => lagAtStart.length === 4, 30_000, 20, 'every row starting');
      // Each row held the loop for 300 ms, so the lag after it was far past the budget; the next waited it out.
      expect(lagAtStart.every((lag) => lag <= budgetMs)).toBe(true);
      await waitFor(
        async () =>
          (
            await t.ctx.database.db.selectFrom('jobs').select('state').where('queue', '=', 'heavy').execute()
          ).every((r) => r.state === 'done'),
        10_000,
        20,
        'every row done',
      );
    } finally {
      await worker.stop(5000);
      pacer.stop();
    }
  });

  it('measures the lag of a held loop, and lets it decay once the loop turns freely', async () => {
    const pacer = createLoopPacer({ budgetMs: 50, maxWaitMs: 10_000 });
    try {
      await new Promise((r) => setTimeout(r, 30));
      hold(200);
      // Read while the loop is still held: the sample due during the hold is overdue by most of it.
      expect(pacer.lagMs()).toBeGreaterThan(100);
      await pacer.pace();
      expect(pacer.lagMs()).toBeLessThanOrEqual(50);
    } finally {
      pacer.stop();
    }
  });

  it('holds work to the lower budget while API requests come in, and to the higher one after', async () => {
    const pacer = createLoopPacer({
      budgetMs: 400,
      contendedBudgetMs: 50,
      contendedMs: 2000,
      maxWaitMs: 10_000,
    });
    try {
      await new Promise((r) => setTimeout(r, 30));
      expect(pacer.contended()).toBe(false);
      hold(150);
      await pacer.pace();
      // No request lately: a lag of 150 ms is within the budget of 400, so the row starts at once.
      expect(pacer.lagMs()).toBeGreaterThan(100);

      await new Promise((r) => setTimeout(r, 100));
      pacer.noteRequest();
      expect(pacer.contended()).toBe(true);
      hold(150);
      await pacer.pace();
      // A request just came in: the row waits until the lag is within 50 ms.
      expect(pacer.lagMs()).toBeLessThanOrEqual(50);

      await new Promise((r) => setTimeout(r, 2100));
      expect(pacer.contended()).toBe(false);
    } finally {
      pacer.stop();
    }
  });

  it('waits no longer than a step asks while the loop lags', async () => {
    const pacer = createLoopPacer({ budgetMs: 1, maxWaitMs: 10_000 });
    // Another timer holds the loop for a bounded number of turns, so the lag stays above the budget until it ends.
    const HOLDS = 100;
    let holds = 0;
    const busy = setInterval(() => {
      if (++holds >= HOLDS) clearInterval(busy);
      hold(30);
    }, 5);
    try {
      await waitFor(() => holds >= 3, 10_000, 5, 'the loop held');
      await pacer.pace(40);
      // Returned while the loop still lagged: it gave up after its own wait, not once the lag ended.
      expect(holds).toBeLessThan(HOLDS);
      expect(pacer.lagMs()).toBeGreaterThan(1);
    } finally {
      clearInterval(busy);
      pacer.stop();
    }
  });
});
