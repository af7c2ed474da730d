/** SQL for dynamic templates. */
import type { Selectable } from 'kysely';
import type { DynamicTemplatesTable, Queryable } from '../db/types.ts';

export type TemplateRow = Selectable<DynamicTemplatesTable>;

/** Inserts a template and returns it. */
export async function insertTemplate(
  db: Queryable,
  customerId: number,
  name: string,
  body: string,
  now: number,
  contentBlocks: string | null = null,
): Promise<TemplateRow> {
  return db
    .insertInto('dynamic_templates')
    .values({
      customer_id: customerId,
      name,
      body,
      content_blocks: contentBlocks,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** An account's templates, oldest first. */
export async function listTemplates(db: Queryable, customerId: number): Promise<TemplateRow[]> {
  return db
    .selectFrom('dynamic_templates')
    .selectAll()
    .where('customer_id', '=', customerId)
    .orderBy('id')
    .execute();
}

/** One template of an account by id. */
export async function findTemplateById(
  db: Queryable,
  customerId: number,
  id: number,
): Promise<TemplateRow | undefined> {
  return db
    .selectFrom('dynamic_templates')
    .selectAll()
    .where('customer_id', '=', customerId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** One template of an account by its exact name. */
export async function findTemplateByName(
  db: Queryable,
  customerId: number,
  name: string,
): Promise<TemplateRow | undefined> {
  return db
    .selectFrom('dynamic_templates')
    .selectAll()
    .where('customer_id', '=', customerId)
    .where('name', '=', name)
    .executeTakeFirst();
}

/** Updates name and/or body; returns the updated row. */
export async function updateTemplate(
  db: Queryable,
  customerId: number,
  id: number,
  changes: { name?: string; body?: string; content_blocks?: string | null },
  now: number,
): Promise<TemplateRow | undefined> {
  return db
    .updateTable('dynamic_templates')
    .set({ ...changes, updated_at: now })
    .where('customer_id', '=', customerId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** Deletes a template; returns whether one was deleted. */
export async function deleteTemplate(db: Queryable, customerId: number, id: number): Promise<boolean> {
  const res = await db
    .deleteFrom('dynamic_templates')
    .where('customer_id', '=', customerId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}
