/** How the worker ends the rows its handlers finished: together, in the handler's own transaction, or with others. */
import { describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { TableNode, UpdateQueryNode, type KyselyPlugin } from 'kysely';
import { waitFor } from '../test/wait.ts';
import { countingSettles } from '../test/worker.ts';
import { finishAllIn, type FinishIn } from './finish.ts';
import { gate, workerTestBed } from './worker.test-support.ts';
import type { QueueSpec } from './worker.ts';
import type { TestContext } from '../test/harness.ts';
import type { Transaction } from 'kysely';
import type { DB } from '../db/types.ts';

const { ctx, startWorker, untilDone, enqueue, rowsIn } = workerTestBed();

/**
 * A lane of four slots whose handlers end the rows of payloads 0–3 together, in one transaction that also runs `look`
 * (the rows it reads are kept in `seen`), and return at once for the others; `calls` counts each row's runs.
 */
function fourEndedTogether(
  ctx: () => TestContext['ctx'],
  look: (trx: Transaction<DB>) => Promise<unknown[]>,
) {
  const handed: FinishIn[] = [];
  const written = gate();
  const calls = new Map<number, number>();
  const state = { seen: [] as unknown[], calls };
  const spec: QueueSpec = {
    concurrency: 4,
    handler: async (job, _pace, finishIn) => {
      calls.set(job.id, (calls.get(job.id) ?? 0) + 1);
      if ((job.data as number) >= 4) return;
      handed.push(finishIn);
      if (handed.length < 4) return written.promise;
      await ctx()
        .database.db.transaction()
        .execute(async (trx) => {
          await finishAllIn(trx, handed);
          state.seen = await look(trx);
        });
      for (const f of handed) f.ended();
      written.open();
    },
  };
  return { spec, state };
}

describe('finishing work rows', () => {
  it('marks rows whose handlers finish together done in one write', async () => {
    const watched = countingSettles(ctx().database);
    const held = gate();
    let started = 0;
    for (let i = 0; i < 10; i++) await enqueue('mail', i);
    startWorker(
      {
        mail: {
          concurrency: 10,
          handler: async () => {
            started++;
            await held.promise;
          },
        },
      },
      { database: watched.database },
    );
    await waitFor(() => started === 10, 5000, 10, 'all ten handlers running');
    held.open();

    await waitFor(async () => (await rowsIn('done')).length === 10, 5000, 10, 'all rows done');
    expect(watched.settles()).toBe(1);
  });

  it('writes nothing more for a row its handler finished in its own transaction', async () => {
    const { database } = ctx();
    const watched = countingSettles(database);
    const ids = [await enqueue('mail', 1), await enqueue('mail', 2)];
    startWorker(
      {
        mail: {
          handler: async (_job, _pace, finishIn) => {
            await database.db.transaction().execute((trx) => finishIn(trx));
          },
        },
      },
      { database: watched.database },
    );

    await waitFor(async () => (await rowsIn('done')).length === 2, 5000, 10, 'both rows done');
    expect((await rowsIn('done')).map((r) => r.id).sort()).toEqual(ids.sort());
    expect(watched.settles()).toBe(0);
  });

  it('ends the rows of handlers recorded in one transaction with one statement, and writes nothing more for them', async () => {
    const watched = countingSettles(ctx().database);
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) ids.push(await enqueue('mail', i));
    // The four handlers hand their rows to one shared write, as deliveries recorded in one group commit do.
    const handed: FinishIn[] = [];
    const written = gate();
    let jobUpdates = 0;
    const counting: KyselyPlugin = {
      transformQuery: ({ node }) => {
        if (UpdateQueryNode.is(node) && node.table && TableNode.is(node.table))
          if (node.table.table.identifier.name === 'jobs') jobUpdates++;
        return node;
      },
      transformResult: async ({ result }) => result,
    };
    startWorker(
      {
        mail: {
          concurrency: 4,
          handler: async (_job, _pace, finishIn) => {
            handed.push(finishIn);
            if (handed.length === 4) {
              await ctx()
                .database.db.withPlugin(counting)
                .transaction()
                .execute((trx) => finishAllIn(trx, handed));
              for (const f of handed) f.ended();
              written.open();
            }
            await written.promise;
          },
        },
      },
      { database: watched.database },
    );

    await waitFor(async () => (await rowsIn('done')).length === 4, 5000, 10, 'all four rows done');
    expect((await rowsIn('done')).map((r) => r.id)).toEqual(ids);
    expect(jobUpdates).toBe(1);
    await sleep(50);
    expect(watched.settles()).toBe(0);
  });

  it('retries a row whose handler finished it in a transaction that rolled back', async () => {
    const id = await enqueue('mail', 'x');
    let calls = 0;
    startWorker({
      mail: {
        retrySchedule: [20],
        handler: async (_job, _pace, finishIn) => {
          calls++;
          await ctx()
            .database.db.transaction()
            .execute(async (trx) => {
              await finishIn(trx);
              if (calls === 1) throw new Error('the outcome could not be recorded');
            });
        },
      },
    });

    const row = await untilDone(id);
    expect({ calls, attempts: row.attempts }).toEqual({ calls: 2, attempts: 2 });
  });

  it('claims nothing in the transaction that ends its rows: the lane claims its next rows on its own', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 8; i++) ids.push(await enqueue('mail', i));
    const { spec, state } = fourEndedTogether(ctx, async (trx) =>
      (await trx.selectFrom('jobs').select('state').where('id', 'in', ids.slice(4)).execute()).map(
        (r) => r.state,
      ),
    );
    startWorker({ mail: spec });

    await waitFor(async () => (await rowsIn('done')).length === 8, 5000, 10, 'all eight rows done');
    expect(state.seen).toEqual(['queued', 'queued', 'queued', 'queued']);
    expect([...state.calls.values()]).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
  });

  it('runs again a row ended with others in a transaction that rolled back, and runs the next', async () => {
    const first = await enqueue('mail', 'first');
    const second = await enqueue('mail', 'second');
    const calls: string[] = [];
    startWorker({
      mail: {
        concurrency: 1,
        retrySchedule: [20],
        handler: async (job, _pace, finishIn) => {
          calls.push(job.data as string);
          if (job.id !== first || calls.length > 1) return;
          await ctx()
            .database.db.transaction()
            .execute(async (trx) => {
              await finishAllIn(trx, [finishIn]);
              throw new Error('the outcome could not be recorded');
            });
        },
      },
    });

    await untilDone(first);
    await untilDone(second);
    expect(calls.sort()).toEqual(['first', 'first', 'second']);
  });

  it('never runs more rows at once than the lane has slots while its rows end in shared commits', async () => {
    for (let i = 0; i < 40; i++) await enqueue('mail', i);
    let running = 0;
    let most = 0;
    const calls = new Map<number, number>();
    let pair: { finish: FinishIn; done: () => void }[] = [];
    startWorker({
      mail: {
        concurrency: 4,
        handler: async (job, _pace, finishIn) => {
          calls.set(job.id, (calls.get(job.id) ?? 0) + 1);
          most = Math.max(most, ++running);
          try {
            // Rows end two by two, each pair in one transaction, as outcomes recorded in one group commit do.
            const ended = new Promise<void>((done) => pair.push({ finish: finishIn, done }));
            if (pair.length === 2) {
              const both = pair;
              pair = [];
              await ctx()
                .database.db.transaction()
                .execute((trx) =>
                  finishAllIn(
                    trx,
                    both.map((p) => p.finish),
                  ),
                );
              for (const p of both) p.finish.ended();
              for (const p of both) p.done();
            }
            await ended;
          } finally {
            running--;
          }
        },
      },
    });

    await waitFor(
      async () => (await rowsIn('done')).length >= 38,
      10_000,
      10,
      'the rows ended in pairs done',
    );
    expect(most).toBeLessThanOrEqual(4);
    expect([...calls.values()].every((n) => n === 1)).toBe(true);
  });
});
