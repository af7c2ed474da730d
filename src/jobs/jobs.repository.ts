/**
 * SQL for work rows: enqueue, claim with a lease, finish, retry, extend, prune. Features enqueue through enqueueJob
 * (one row), enqueueJobs (a list) or enqueueEach (one row per id a query selects), inside their own transaction. The
 * one other writer of `jobs` is accepted mail on PostgreSQL, whose single statement inserts the rows of a batch
 * together with their work rows (email/messages.repository.ts, insertAcceptedStatement).
 */
import { sql, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { Dialect } from '../db/connect.ts';
import type { DB, JobsTable, Queryable } from '../db/types.ts';
import { precompile, precompileRows } from '../db/precompiled.ts';

/** A work row. */
export type JobRow = Selectable<JobsTable>;

/** What a new work row holds. */
export interface NewJob {
  queue: string;
  payload: unknown;
  runAt?: number;
  /** At most one row ever exists per unique key; enqueueing it again is a no-op. */
  uniqueKey?: string;
}

/** The bound values of one new work row. */
type JobValues = {
  queue: string;
  payload: string;
  run_at: number;
  unique_key: string | null;
  now: number;
};

/** The bound values of `job`, queued at `now` unless it names a later time. */
const jobValues = (job: NewJob, now: number): JobValues => ({
  queue: job.queue,
  payload: JSON.stringify(job.payload ?? null),
  run_at: job.runAt ?? now,
  unique_key: job.uniqueKey ?? null,
  now,
});

/** The `jobs` row a new work row inserts: queued, never attempted. */
const queuedRow = (j: JobValues) =>
  ({
    queue: j.queue,
    payload: j.payload,
    state: 'queued',
    attempts: 0,
    run_at: j.run_at,
    unique_key: j.unique_key,
    created_at: j.now,
    updated_at: j.now,
  }) as const;

// Every accepted message and every webhook call enqueues work, so the insert is compiled once (see db/precompiled.ts).
const insertJobQuery = precompile((db, j: JobValues) =>
  db
    .insertInto('jobs')
    .values(queuedRow(j))
    .onConflict((oc) => oc.column('unique_key').doNothing())
    .returning('id'),
);

/**
 * Inserts a queued row; returns its id, or null when a row with the same unique key already exists. The duplicate is
 * skipped with ON CONFLICT DO NOTHING rather than caught, so an enclosing PostgreSQL transaction stays usable.
 */
export async function enqueueJob(db: Queryable, job: NewJob, now = Date.now()): Promise<number | null> {
  const { rows } = await insertJobQuery(db, jobValues(job, now));
  return rows[0]?.id ?? null;
}

// Accepted messages enqueue their deliveries in batches, so the multi-row insert is compiled once per row count.
const insertJobsQuery = precompileRows((db, rows: JobValues[]) =>
  db
    .insertInto('jobs')
    .values(rows.map(queuedRow))
    .onConflict((oc) => oc.column('unique_key').doNothing()),
);

/** Inserts queued rows for a list of jobs, in chunks; unique keys that already exist are skipped. */
export async function enqueueJobs(db: Queryable, jobs: readonly NewJob[], now = Date.now()): Promise<void> {
  await insertJobsQuery(
    db,
    jobs.map((job) => jobValues(job, now)),
  );
}

/** One work row per id a query selects. */
export interface EachJob {
  queue: string;
  /** The payload is `{ [key]: id }`. */
  key: string;
  ids: SelectQueryBuilder<DB, keyof DB, { id: number }>;
}

/**
 * Inserts one queued row per id `ids` selects, in one statement that never brings the ids into this process (a
 * campaign's audience may be large). The payload JSON is built by the database's own JSON function. Returns the count.
 */
export async function enqueueEach(
  db: Queryable,
  dialect: Dialect,
  job: EachJob,
  now = Date.now(),
): Promise<number> {
  const payload =
    dialect === 'postgres'
      ? sql<string>`cast(json_build_object(${job.key}::text, t.id) as text)`
      : sql<string>`json_object(${job.key}, t.id)`;
  const result = await db
    .insertInto('jobs')
    .columns(['queue', 'payload', 'state', 'attempts', 'run_at', 'created_at', 'updated_at'])
    .expression((eb) =>
      eb
        .selectFrom(job.ids.as('t'))
        .select([
          sql<string>`cast(${job.queue} as text)`.as('queue'),
          payload.as('payload'),
          sql<string>`'queued'`.as('state'),
          sql<number>`0`.as('attempts'),
          sql<number>`cast(${now} as bigint)`.as('run_at'),
          sql<number>`cast(${now} as bigint)`.as('created_at'),
          sql<number>`cast(${now} as bigint)`.as('updated_at'),
        ]),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}

interface ClaimValues extends Record<string, unknown> {
  queue: string;
  owner: string;
  leaseUntil: number;
  limit: number;
  now: number;
}

/** The claim statement; on PostgreSQL rows locked by another claimer are skipped. Compiled once per dialect. */
const claimQuery = (skipLocked: boolean) =>
  precompile((db, v: ClaimValues) => {
    const expired = db
      .selectFrom('jobs')
      .select('id')
      .where('queue', '=', v.queue)
      .where('state', '=', 'running')
      .where('lease_until', '<', v.now)
      .orderBy('lease_until')
      .limit(v.limit)
      .$if(skipLocked, (qb) => qb.forUpdate().skipLocked());
    const queued = db
      .selectFrom('jobs')
      .select('id')
      .where('queue', '=', v.queue)
      .where('state', '=', 'queued')
      .where('run_at', '<=', v.now)
      .orderBy('run_at')
      .orderBy('id')
      .limit(v.limit)
      .$if(skipLocked, (qb) => qb.forUpdate().skipLocked());
    const due = db
      .selectFrom(expired.as('e'))
      .select('e.id')
      .unionAll(db.selectFrom(queued.as('q')).select('q.id'))
      .limit(v.limit);
    return db
      .updateTable('jobs')
      .set((eb) => ({
        state: 'running',
        lease_owner: v.owner,
        lease_until: v.leaseUntil,
        attempts: eb('attempts', '+', 1),
        updated_at: v.now,
      }))
      .where('id', 'in', due)
      .returningAll();
  });
const claimQueries = { sqlite: claimQuery(false), postgres: claimQuery(true) };

/**
 * Claims up to `limit` due rows of one queue for `owner`: running rows whose lease expired (their worker died) first,
 * then queued rows whose run_at has come, oldest first. Each kind is read through its own index with its own limit, so
 * a claim costs the same with a long backlog of due rows as with none. On PostgreSQL rows locked by another claimer are
 * skipped; SQLite serialises writers. The statement is compiled once: a busy lane claims many times a second.
 */
export async function claimJobs(
  db: Queryable,
  dialect: Dialect,
  opts: {
    queue: string;
    owner: string;
    leaseMs: number;
    limit: number;
    now: number;
  },
): Promise<JobRow[]> {
  const { rows } = await claimQueries[dialect](db, {
    queue: opts.queue,
    owner: opts.owner,
    leaseUntil: opts.now + opts.leaseMs,
    limit: opts.limit,
    now: opts.now,
  });
  return rows;
}

/** Marks a claimed row done, if `owner` still holds its lease. */
export async function completeJob(db: Queryable, id: number, owner: string, now: number): Promise<boolean> {
  return (await completeJobs(db, [id], owner, now)) > 0;
}

/**
 * Marks many claimed rows done in one statement, each only if `owner` still holds its lease; returns how many changed.
 * The worker settles the rows its handlers finished together this way, so a busy lane costs one write per batch.
 */
export async function completeJobs(
  db: Queryable,
  ids: readonly number[],
  owner: string,
  now: number,
): Promise<number> {
  if (ids.length === 0) return 0;
  const res = await db
    .updateTable('jobs')
    .set({ state: 'done', finished_at: now, updated_at: now, lease_until: null, last_error: null })
    .where('id', 'in', ids)
    .where('lease_owner', '=', owner)
    .where('state', '=', 'running')
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/** Puts a claimed row back in the queue for `retryAt`, or marks it failed for good when `retryAt` is null. */
export async function failJob(
  db: Queryable,
  id: number,
  owner: string,
  error: string,
  retryAt: number | null,
  now: number,
): Promise<boolean> {
  const res = await db
    .updateTable('jobs')
    .set(
      retryAt === null
        ? {
            state: 'failed',
            finished_at: now,
            updated_at: now,
            lease_until: null,
            last_error: error,
          }
        : {
            state: 'queued',
            run_at: retryAt,
            updated_at: now,
            lease_until: null,
            lease_owner: null,
            last_error: error,
          },
    )
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('state', '=', 'running')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** The distinct lease owners of running rows whose owner starts with `prefix`. */
export async function runningOwners(db: Queryable, prefix: string): Promise<string[]> {
  const rows = await db
    .selectFrom('jobs')
    .select('lease_owner')
    .distinct()
    .where('state', '=', 'running')
    .where('lease_owner', 'like', `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)
    .execute();
  return rows.flatMap((r) => (r.lease_owner === null ? [] : [r.lease_owner]));
}

/** Ends the leases of the running rows held by `owners` now, so the next claim takes them; returns how many. */
export async function expireLeases(db: Queryable, owners: string[], now: number): Promise<number> {
  if (owners.length === 0) return 0;
  const result = await db
    .updateTable('jobs')
    .set({ lease_until: now - 1, updated_at: now })
    .where('state', '=', 'running')
    .where('lease_owner', 'in', owners)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Extends the lease of a row `owner` is still working on. */
export async function extendLease(db: Queryable, id: number, owner: string, until: number): Promise<boolean> {
  const res = await db
    .updateTable('jobs')
    .set({ lease_until: until })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('state', '=', 'running')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Deletes finished (done or failed) rows that finished before `before`. Unfinished rows are never touched. */
export async function pruneFinishedJobs(db: Queryable, before: number): Promise<number> {
  const res = await db
    .deleteFrom('jobs')
    .where('state', 'in', ['done', 'failed'])
    .where('finished_at', '<', before)
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}

/** Reads one row by id. */
export async function findJob(db: Queryable, id: number): Promise<JobRow | undefined> {
  return db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Per queue: work rows waiting (queued or running) and the run time of the oldest queued one (what /metrics shows). */
export async function queueStats(
  db: Queryable,
): Promise<{ queue: string; depth: number; oldest: number | null }[]> {
  const rows = await db
    .selectFrom('jobs')
    .select((eb) => ['queue', eb.fn.countAll<number>().as('depth'), eb.fn.min('run_at').as('oldest')])
    .where('state', 'in', ['queued', 'running'])
    .groupBy('queue')
    .execute();
  return rows.map((r) => ({
    queue: r.queue,
    depth: Number(r.depth),
    oldest: r.oldest === null ? null : Number(r.oldest),
  }));
}
