/**
 * Two real worker processes over one database (PostgreSQL: FOR UPDATE SKIP LOCKED; SQLite: two processes on one WAL
 * file) share a queue without running any row twice. The processes are src/jobs/fixtures/worker-process.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../test/harness.ts';
import { waitFor } from '../test/wait.ts';
import { enqueueJob } from './jobs.repository.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ROWS = 200;
const PROCESS_MAX_MS = 15_000;

interface WorkerProcess {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  exited: Promise<number | null>;
}

let t: TestContext;
let processes: WorkerProcess[];

beforeEach(async () => {
  t = await createTestContext();
  processes = [];
});
afterEach(async () => {
  for (const p of processes)
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  await Promise.all(processes.map((p) => p.exited));
  await t.close();
});

function spawnWorker(owner: string): WorkerProcess {
  const child = spawn(
    process.execPath,
    [
      'bin/run-ts.js',
      'src/jobs/fixtures/worker-process.ts',
      t.scratch.url,
      owner,
      'bulk',
      String(PROCESS_MAX_MS),
    ],
    { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  const p: WorkerProcess = {
    child,
    stdout: '',
    stderr: '',
    exited: once(child, 'exit').then(([code]) => code as number | null),
  };
  child.stdout!.on('data', (d: Buffer) => (p.stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (p.stderr += d.toString()));
  processes.push(p);
  return p;
}

async function exitCode(p: WorkerProcess, timeoutMs: number): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`worker process did not exit in ${timeoutMs} ms; stderr: ${p.stderr}`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([p.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

it('runs every row exactly once when two worker processes share the queue', async () => {
  const { db } = t.ctx.database;
  // No unique constraint: a row run twice shows up as two lines.
  await sql`create table job_runs (job_id bigint not null, owner text not null)`.execute(db);
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < ROWS; i++) await enqueueJob(trx, { queue: 'bulk', payload: { i } });
  });

  const workers = [spawnWorker('proc-a'), spawnWorker('proc-b')];
  await waitFor(
    () => workers.every((w) => w.stdout.includes('ready')),
    40_000,
    20,
    'both worker processes ready',
  );
  for (const w of workers) w.child.stdin!.write('go\n');
  const codes = await Promise.all(workers.map((w) => exitCode(w, PROCESS_MAX_MS + 5000)));

  expect(codes, workers.map((w) => w.stderr).join('\n')).toEqual([0, 0]);
  const runs = await sql<{
    job_id: number | string;
    owner: string;
  }>`select job_id, owner from job_runs`.execute(db);
  const perJob = new Map<number, number>();
  for (const r of runs.rows) perJob.set(Number(r.job_id), (perJob.get(Number(r.job_id)) ?? 0) + 1);
  const jobs = await db.selectFrom('jobs').select(['id', 'state', 'attempts']).execute();
  expect(jobs).toHaveLength(ROWS);
  expect(jobs.filter((j) => perJob.get(j.id) !== 1)).toEqual([]);
  expect(runs.rows).toHaveLength(ROWS);
  expect(new Set(runs.rows.map((r) => r.owner))).toEqual(new Set(['proc-a', 'proc-b']));
  expect(jobs.filter((j) => j.state !== 'done' || j.attempts !== 1)).toEqual([]);
}, 90_000);
