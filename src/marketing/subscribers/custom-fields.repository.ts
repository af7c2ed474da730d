/** SQL for subscriber custom fields: the account's field types (name → id) and each subscriber's values. */
import type { Queryable } from '../../db/types.ts';
import { precompile } from '../../db/precompiled.ts';

/** The ids of the account's field types with these names (lower-cased keys), creating the missing ones. */
export async function ensureFieldTypes(
  db: Queryable,
  customerId: number,
  names: Map<string, string>,
  now: number,
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (names.size === 0) return out;
  const rows = [...names].map(([key, name]) => ({
    customer_id: customerId,
    name,
    name_key: key,
    created_at: now,
  }));
  await db
    .insertInto('subscriber_custom_field_types')
    .values(rows)
    .onConflict((oc) => oc.columns(['customer_id', 'name_key']).doNothing())
    .execute();
  const found = await db
    .selectFrom('subscriber_custom_field_types')
    .select(['id', 'name_key'])
    .where('customer_id', '=', customerId)
    .where('name_key', 'in', [...names.keys()])
    .execute();
  for (const r of found) out.set(r.name_key, Number(r.id));
  return out;
}

/** Sets custom field values of subscribers (a value already set is replaced). */
export async function upsertFieldValues(
  db: Queryable,
  rows: { subscriber_id: number; field_type_id: number; value: string }[],
): Promise<void> {
  for (let i = 0; i < rows.length; i += 300) {
    await db
      .insertInto('subscriber_custom_field_values')
      .values(rows.slice(i, i + 300))
      .onConflict((oc) =>
        oc
          .columns(['subscriber_id', 'field_type_id'])
          .doUpdateSet((eb) => ({ value: eb.ref('excluded.value') })),
      )
      .execute();
  }
}

// Read for every marketing delivery (see db/precompiled.ts).
const fieldValuesQuery = precompile((db, v: { subscriberId: number }) =>
  db
    .selectFrom('subscriber_custom_field_values as v')
    .innerJoin('subscriber_custom_field_types as t', 't.id', 'v.field_type_id')
    .select(['t.id', 't.uuid', 't.name', 'v.value'])
    .where('v.subscriber_id', '=', v.subscriberId)
    .orderBy('t.id'),
);

/** The custom field values of a subscriber, with their field names, in field creation order. */
export async function fieldValuesOf(db: Queryable, subscriberId: number) {
  return (await fieldValuesQuery(db, { subscriberId })).rows;
}

/** The account's custom field types, oldest first. */
export async function listFieldTypes(db: Queryable, customerId: number) {
  return db
    .selectFrom('subscriber_custom_field_types')
    .select(['id', 'uuid', 'name', 'created_at'])
    .where('customer_id', '=', customerId)
    .orderBy('id')
    .execute();
}

/** One custom field type of the account. */
export async function findFieldType(db: Queryable, customerId: number, id: number) {
  return db
    .selectFrom('subscriber_custom_field_types')
    .select(['id', 'uuid', 'name', 'created_at'])
    .where('customer_id', '=', customerId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The account's custom field type with this lower-cased name. */
export async function findFieldTypeByKey(db: Queryable, customerId: number, nameKey: string) {
  return db
    .selectFrom('subscriber_custom_field_types')
    .select(['id', 'uuid', 'name', 'created_at'])
    .where('customer_id', '=', customerId)
    .where('name_key', '=', nameKey)
    .executeTakeFirst();
}

/** Renames a custom field type. */
export async function renameFieldType(
  db: Queryable,
  id: number,
  name: string,
  nameKey: string,
): Promise<void> {
  await db
    .updateTable('subscriber_custom_field_types')
    .set({ name, name_key: nameKey })
    .where('id', '=', id)
    .execute();
}
