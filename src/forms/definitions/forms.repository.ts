/** SQL of form definitions and their statistics. Deleted forms are never returned. */
import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { FormsTable, Queryable } from '../../db/types.ts';
import type { Dialect } from '../../db/connect.ts';

/** A stored form. */
export type FormRow = Selectable<FormsTable>;

/** Filters and order of the forms list. */
export interface FormListQuery {
  customerId: number;
  formId?: string;
  search?: string;
  archived?: boolean;
  active?: boolean;
  orderBy: 'created_at' | 'title' | 'updated_at' | 'submission_count';
  order: 'asc' | 'desc';
  limit: number;
  offset: number;
}

/** Inserts a form; it takes the next integer `number` (an identity default on PostgreSQL, the next free one on SQLite). */
export async function insertForm(
  db: Queryable,
  dialect: Dialect,
  row: Insertable<FormsTable>,
): Promise<void> {
  const { number: _ignored, ...rest } = row;
  const values =
    dialect === 'sqlite'
      ? { ...rest, number: sql<number>`(select coalesce(max(number), 0) + 1 from forms)` }
      : rest;
  await db.insertInto('forms').values(values).execute();
}

/** The active, unarchived form served at a vanity name (the oldest when several share it). */
export async function findFormByVanity(db: Queryable, vanity: string): Promise<FormRow | undefined> {
  return db
    .selectFrom('forms')
    .selectAll()
    .where('vanity_url', '=', vanity)
    .where('deleted', '=', 0)
    .where('active', '=', 1)
    .where('archived', '=', 0)
    .orderBy('created_at')
    .limit(1)
    .executeTakeFirst();
}

/** One form of a customer that is not deleted. */
export async function findForm(db: Queryable, customerId: number, id: string): Promise<FormRow | undefined> {
  return db
    .selectFrom('forms')
    .selectAll()
    .where('id', '=', id)
    .where('customer_id', '=', customerId)
    .where('deleted', '=', 0)
    .executeTakeFirst();
}

/** One form by id alone, not deleted (public reads and submissions check the other flags themselves). */
export async function findPublicForm(db: Queryable, id: string): Promise<FormRow | undefined> {
  return db.selectFrom('forms').selectAll().where('id', '=', id).where('deleted', '=', 0).executeTakeFirst();
}

/** Changes columns of a customer's form; returns whether it existed. */
export async function updateForm(
  db: Queryable,
  customerId: number,
  id: string,
  set: Updateable<FormsTable>,
): Promise<boolean> {
  const res = await db
    .updateTable('forms')
    .set(set)
    .where('id', '=', id)
    .where('customer_id', '=', customerId)
    .where('deleted', '=', 0)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

function filtered(db: Queryable, q: FormListQuery) {
  let qb = db.selectFrom('forms').where('customer_id', '=', q.customerId).where('deleted', '=', 0);
  if (q.formId) qb = qb.where('id', '=', q.formId);
  if (q.archived !== undefined) qb = qb.where('archived', '=', q.archived ? 1 : 0);
  if (q.active !== undefined) qb = qb.where('active', '=', q.active ? 1 : 0);
  if (q.search) {
    const pattern = `%${q.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    qb = qb.where(({ or }) =>
      or([
        sql<boolean>`lower(title) like ${pattern} escape '\\'`,
        sql<boolean>`lower(coalesce(description, '')) like ${pattern} escape '\\'`,
      ]),
    );
  }
  return qb;
}

/** One page of a customer's forms and the number matching the filters. */
export async function listForms(
  db: Queryable,
  q: FormListQuery,
): Promise<{ rows: FormRow[]; count: number }> {
  const count = await filtered(db, q)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  const rows = await filtered(db, q)
    .selectAll()
    .orderBy(q.orderBy, q.order)
    .orderBy('id', q.order)
    .limit(q.limit)
    .offset(q.offset)
    .execute();
  return { rows, count: Number(count.n) };
}

/** Active forms, submissions in total and since `sinceDay` (days since the epoch) of a customer's forms that are not deleted. */
export async function formStats(
  db: Queryable,
  customerId: number,
  sinceDay: number,
): Promise<{ active: number; total: number; recent: number }> {
  const totals = await db
    .selectFrom('forms')
    .where('customer_id', '=', customerId)
    .where('deleted', '=', 0)
    .select((eb) => [
      eb.fn
        .coalesce(eb.fn.sum<number>(eb.case().when('active', '=', 1).then(1).else(0).end()), sql<number>`0`)
        .as('active'),
      eb.fn.coalesce(eb.fn.sum<number>('submission_count'), sql<number>`0`).as('total'),
    ])
    .executeTakeFirstOrThrow();
  const recent = await db
    .selectFrom('form_daily_counts as d')
    .innerJoin('forms as f', 'f.id', 'd.form_id')
    .where('d.customer_id', '=', customerId)
    .where('d.day', '>=', sinceDay)
    .where('f.deleted', '=', 0)
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('d.count'), sql<number>`0`).as('n'))
    .executeTakeFirstOrThrow();
  return { active: Number(totals.active), total: Number(totals.total), recent: Number(recent.n) };
}
