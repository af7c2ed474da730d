/** How the worker ends the rows its handlers finished: together, in the handler's own transaction, or with others. */
import { describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { TableNode, UpdateQueryNode, type KyselyPlugin } from 'kysely';
import { waitFor } from '../test/wait.ts';
import { countingSettles } from '../test/worker.ts';
import { finishAllIn, type FinishIn } from './worker.ts';
import { gate, workerTestBed } from './worker.test-support.ts';

const { ctx, startWorker, untilDone, enqueue, rowsIn } = workerTestBed();

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
});
