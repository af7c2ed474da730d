/** Crash recovery: a worker starting on a node reclaims at once the rows dead runs of that node still lease. */
import { spawnSync } from 'node:child_process';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../test/harness.ts';
import { waitFor } from '../test/wait.ts';
import { enqueueJob, findJob } from './jobs.repository.ts';
import { createWorker, type Worker } from './worker.ts';

let t: TestContext;
let worker: Worker | undefined;
const handled: number[] = [];

beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.ctx.database.db.deleteFrom('jobs').execute();
  handled.length = 0;
});
afterEach(async () => {
  await worker?.stop(1000);
  worker = undefined;
});

/** A pid that no process has now: one of a child that has exited. */
const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid!;

/** A running row leased for five more minutes by `owner`, as a crashed run leaves it. */
async function leasedRow(owner: string): Promise<number> {
  const id = (await enqueueJob(t.ctx.database.db, { queue: 'q', payload: { n: 1 } }))!;
  await t.ctx.database.db
    .updateTable('jobs')
    .set({ state: 'running', lease_owner: owner, lease_until: Date.now() + 300_000, attempts: 1 })
    .where('id', '=', id)
    .execute();
  return id;
}

function start(node: string): Worker {
  worker = createWorker({
    database: t.ctx.database,
    log: t.ctx.log,
    queues: {
      q: { concurrency: 4, retrySchedule: [1000], handler: async (job) => void handled.push(job.id) },
    },
    pollMs: 20,
    leaseMs: 300_000,
    node,
  });
  worker.start();
  return worker;
}

it('runs at once the rows a dead earlier run of this node leased, and records the new run on the lease', async () => {
  const crashed = await leasedRow(`node-a:${deadPid()}:0badc0de`);
  const sameProcessEarlierRun = await leasedRow(`node-a:${process.pid}:0ldrun00`);
  const w = start('node-a');
  await waitFor(() => handled.length === 2, 5000);
  expect(handled.sort()).toEqual([crashed, sameProcessEarlierRun].sort());
  expect(w.owner).toMatch(new RegExp(`^node-a:${process.pid}:[0-9a-f]{8}$`));
  expect((await findJob(t.ctx.database.db, crashed))!.state).toBe('done');
});

it('leaves the leases of other nodes and of live processes on this node to expire', async () => {
  const otherNode = await leasedRow(`node-b:${deadPid()}:0badc0de`);
  const alive = await leasedRow(`node-a:${process.ppid}:11111111`);
  const prefixTwin = await leasedRow(`node-a2:${deadPid()}:22222222`);
  const fresh = (await enqueueJob(t.ctx.database.db, { queue: 'q', payload: { n: 2 } }))!;
  start('node-a');
  await waitFor(() => handled.includes(fresh), 5000);
  await new Promise((r) => setTimeout(r, 200));
  expect(handled).toEqual([fresh]);
  for (const id of [otherNode, alive, prefixTwin])
    expect((await findJob(t.ctx.database.db, id))!.state).toBe('running');
});
