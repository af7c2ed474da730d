/** SQL of bulk jobs: the job rows, their progress, and their output as numbered sealed chunks. */
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { BulkJobsTable, Queryable } from '../../db/types.ts';

export type BulkJobRow = Selectable<BulkJobsTable>;

/** Inserts a job; returns its id. */
export async function insertBulkJob(db: Queryable, row: Insertable<BulkJobsTable>): Promise<number> {
  const r = await db.insertInto('bulk_jobs').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(r.id);
}

/** A job of an account (any account when `customerId` is null, for the worker). */
export async function findBulkJob(
  db: Queryable,
  customerId: number | null,
  id: number,
): Promise<BulkJobRow | undefined> {
  let q = db.selectFrom('bulk_jobs').selectAll().where('id', '=', id);
  if (customerId !== null) q = q.where('customer_id', '=', customerId);
  return q.executeTakeFirst();
}

/** The account's jobs, newest first. */
export async function listBulkJobs(
  db: Queryable,
  customerId: number,
  limit: number,
  offset: number,
): Promise<BulkJobRow[]> {
  return db
    .selectFrom('bulk_jobs')
    .selectAll()
    .where('customer_id', '=', customerId)
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

/** How many jobs an account has. */
export async function countBulkJobs(db: Queryable, customerId: number): Promise<number> {
  const r = await db
    .selectFrom('bulk_jobs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('customer_id', '=', customerId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Changes a job. */
export async function updateBulkJob(
  db: Queryable,
  id: number,
  set: Updateable<BulkJobsTable>,
): Promise<void> {
  await db.updateTable('bulk_jobs').set(set).where('id', '=', id).execute();
}

/** Drops a job's output (a restarted job writes it again from the start). */
export async function clearChunks(db: Queryable, jobId: number): Promise<void> {
  await db.deleteFrom('bulk_job_chunks').where('job_id', '=', jobId).execute();
}

/** Appends one sealed chunk of output. */
export async function insertChunk(db: Queryable, jobId: number, seq: number, data: string): Promise<void> {
  await db.insertInto('bulk_job_chunks').values({ job_id: jobId, seq, data }).execute();
}

/** One chunk of a job's output. */
export async function findChunk(db: Queryable, jobId: number, seq: number): Promise<string | undefined> {
  return (
    await db
      .selectFrom('bulk_job_chunks')
      .select('data')
      .where('job_id', '=', jobId)
      .where('seq', '=', seq)
      .executeTakeFirst()
  )?.data;
}
