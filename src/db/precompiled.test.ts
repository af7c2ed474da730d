import { afterAll, beforeAll, expect, it } from 'vitest';
import { openScratch } from '../test/database.ts';
import { precompile, precompileRows } from './precompiled.ts';
import type { Database } from './connect.ts';

let database: Database;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ database, close } = await openScratch(undefined, { migrated: true }));
});
afterAll(() => close());

const insertJob = precompile(
  (db, j: { queue: string; payload: string; lastError?: string | null; now: number }) =>
    db
      .insertInto('jobs')
      .values({
        queue: j.queue,
        payload: j.payload,
        state: 'queued',
        run_at: j.now,
        last_error: j.lastError,
        created_at: j.now,
        updated_at: j.now,
      })
      .returning(['id', 'queue', 'payload', 'state', 'last_error']),
);
const jobsOfQueue = precompile((db, q: { queue: string }) =>
  db.selectFrom('jobs').select(['payload']).where('queue', '=', q.queue).orderBy('id'),
);

it('runs one compiled query with the values of each call, inside and outside transactions', async () => {
  const first = await insertJob(database.db, {
    queue: 'precompiled.a',
    payload: '"one"',
    lastError: 'x',
    now: 1,
  });
  const second = await database.db
    .transaction()
    .execute((trx) => insertJob(trx, { queue: 'precompiled.a', payload: '"two"', now: 2 }));
  expect(first.rows).toEqual([
    { id: expect.any(Number), queue: 'precompiled.a', payload: '"one"', state: 'queued', last_error: 'x' },
  ]);
  expect(second.rows[0]).toMatchObject({ payload: '"two"', state: 'queued' });
  expect((await jobsOfQueue(database.reader, { queue: 'precompiled.a' })).rows).toEqual([
    { payload: '"one"' },
    { payload: '"two"' },
  ]);
});

it('binds a value left undefined as NULL', async () => {
  const { rows } = await insertJob(database.db, { queue: 'precompiled.b', payload: 'null', now: 3 });
  expect(rows[0]!.last_error).toBeNull();
});

const insertJobs = precompileRows(
  (db, rows: { queue: string; payload: string; lastError?: string; now: number }[]) =>
    db
      .insertInto('jobs')
      .values(
        rows.map((j) => ({
          queue: j.queue,
          payload: j.payload,
          state: 'queued',
          run_at: j.now,
          last_error: j.lastError,
          created_at: j.now,
          updated_at: j.now,
        })),
      )
      .returning(['queue', 'payload', 'last_error']),
);

it('writes many rows with one compiled statement per row count, in chunks past the limit of one statement', async () => {
  const rows = (queue: string, n: number) =>
    Array.from({ length: n }, (_, i) => ({
      queue,
      payload: String(i),
      now: i,
      ...(i % 2 === 0 && { lastError: `e${i}` }),
    }));
  for (const [queue, n] of [
    ['rows.a', 3],
    ['rows.b', 1],
    ['rows.c', 3],
    ['rows.d', 1201],
  ] as const) {
    const returned = await insertJobs(database.db, rows(queue, n));
    expect(returned).toHaveLength(n);
    const stored = (await jobsOfQueue(database.reader, { queue })).rows.map((r) => Number(r.payload));
    expect(stored).toEqual(Array.from({ length: n }, (_, i) => i));
  }
  const odd = await database.reader
    .selectFrom('jobs')
    .select(['payload', 'last_error'])
    .where('queue', '=', 'rows.a')
    .orderBy('id')
    .execute();
  expect(odd).toEqual([
    { payload: '0', last_error: 'e0' },
    { payload: '1', last_error: null },
    { payload: '2', last_error: 'e2' },
  ]);
  expect(await insertJobs(database.db, [])).toEqual([]);
});
