/**
 * SQL of bulk imports: each statement writes all rows of a request, passed as one JSON array parameter and unpacked by
 * the database (SQLite `json_each`, PostgreSQL `jsonb_array_elements`). A request costs a few small statements, however
 * many subscribers it holds, instead of large multi-row VALUES lists built and prepared per chunk.
 */
import { queueConfirmations } from './confirmations.repository.ts';
import { sql, type RawBuilder } from 'kysely';
import type { Dialect } from '../../db/connect.ts';
import type { Queryable } from '../../db/types.ts';

/** A new subscriber of a bulk import. */
export interface NewSubscriber {
  email: string;
  key: string;
  first_name: string | null;
  last_name: string | null;
  phone: { e164: string | null; typed: string | null } | null;
}

/** The elements of a JSON array parameter of arrays, each as `j.value` (read its fields with `j.value ->> <index>`). */
function rowsOf(dialect: Dialect, rows: unknown[][]): RawBuilder<unknown> {
  const json = JSON.stringify(rows);
  return dialect === 'sqlite'
    ? sql`json_each(${json}) as j`
    : sql`jsonb_array_elements(cast(${json} as jsonb)) as j(value)`;
}

/** Inserts subscribers of an account; returns their ids by email key. */
export async function insertSubscribersAtOnce(
  db: Queryable,
  dialect: Dialect,
  customerId: number,
  subscribers: NewSubscriber[],
  now: number,
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (subscribers.length === 0) return out;
  const rows = subscribers.map((s) => [
    s.email,
    s.key,
    s.first_name,
    s.last_name,
    s.phone?.e164 ?? null,
    s.phone?.typed ?? null,
  ]);
  const inserted = await sql<{ id: number; email_key: string }>`
    insert into subscribers (customer_id, email, email_key, first_name, last_name, phone_number, phone_number_input,
      created_at, updated_at)
    select cast(${customerId} as integer), j.value ->> 0, j.value ->> 1, j.value ->> 2, j.value ->> 3,
      j.value ->> 4, j.value ->> 5, cast(${now} as bigint), cast(${now} as bigint)
    from ${rowsOf(dialect, rows)}
    returning id, email_key`.execute(db);
  for (const r of inserted.rows) out.set(r.email_key, Number(r.id));
  return out;
}

/** Sets custom field values (a value already set is replaced). Each (subscriber, field type) may appear once. */
export async function upsertFieldValuesAtOnce(
  db: Queryable,
  dialect: Dialect,
  values: { subscriber_id: number; field_type_id: number; value: string }[],
): Promise<void> {
  if (values.length === 0) return;
  const rows = values.map((v) => [v.subscriber_id, v.field_type_id, v.value]);
  // `where true` tells SQLite that `on conflict` belongs to the insert, not to a join of the select.
  await sql`
    insert into subscriber_custom_field_values (subscriber_id, field_type_id, value)
    select cast(j.value ->> 0 as bigint), cast(j.value ->> 1 as bigint), j.value ->> 2
    from ${rowsOf(dialect, rows)} where true
    on conflict (subscriber_id, field_type_id) do update set value = excluded.value`.execute(db);
}

/** Adds subscribers to a list (those already on it stay as they are); returns how many were added. */
export async function addMembersAtOnce(
  db: Queryable,
  dialect: Dialect,
  listId: number,
  subscriberIds: number[],
  now: number,
): Promise<number> {
  if (subscriberIds.length === 0) return 0;
  const res = await sql`
    insert into subscription_list_members (list_id, subscriber_id, unsubscribed, created_at, updated_at)
    select cast(${listId} as bigint), cast(j.value ->> 0 as bigint), 0, cast(${now} as bigint), cast(${now} as bigint)
    from ${rowsOf(
      dialect,
      subscriberIds.map((id) => [id]),
    )} where true
    on conflict (list_id, subscriber_id) do nothing`.execute(db);
  const added = Number(res.numAffectedRows ?? 0);
  if (added > 0) await queueConfirmations(db, listId, now);
  return added;
}
