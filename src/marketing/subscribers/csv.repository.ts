/** SQL for CSV export: the account's field types, and the members of a list in id order, one batch after another. */
import type { Queryable } from '../../db/types.ts';

/** One exported subscriber row. */
export interface ExportRow {
  id: number;
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone_number: string | null;
  unsubscribed: number;
  member_unsubscribed: number;
  created_at: number;
}

/** The account's custom field types, oldest first. */
export async function fieldTypesOf(
  db: Queryable,
  customerId: number,
): Promise<{ id: number; name: string }[]> {
  const rows = await db
    .selectFrom('subscriber_custom_field_types')
    .select(['id', 'name'])
    .where('customer_id', '=', customerId)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ id: Number(r.id), name: r.name }));
}

/** Up to `limit` members of a list with an id above `afterId`, in id order (keyset paging: each batch costs the same). */
export async function membersAfter(
  db: Queryable,
  listId: number,
  afterId: number,
  limit: number,
): Promise<ExportRow[]> {
  const rows = await db
    .selectFrom('subscription_list_members as m')
    .innerJoin('subscribers as s', 's.id', 'm.subscriber_id')
    .select([
      's.id',
      's.email',
      's.first_name',
      's.last_name',
      's.phone_number',
      's.unsubscribed',
      's.created_at',
    ])
    .select('m.unsubscribed as member_unsubscribed')
    .where('m.list_id', '=', listId)
    .where('s.id', '>', afterId)
    .orderBy('s.id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    ...r,
    id: Number(r.id),
    created_at: Number(r.created_at),
    unsubscribed: Number(r.unsubscribed),
    member_unsubscribed: Number(r.member_unsubscribed),
  }));
}

/** Custom field values of these subscribers: subscriber id → field type id → value. */
export async function fieldValuesOfMany(
  db: Queryable,
  ids: number[],
): Promise<Map<number, Map<number, string>>> {
  const out = new Map<number, Map<number, string>>();
  if (ids.length === 0) return out;
  const rows = await db
    .selectFrom('subscriber_custom_field_values')
    .select(['subscriber_id', 'field_type_id', 'value'])
    .where('subscriber_id', 'in', ids)
    .execute();
  for (const r of rows) {
    const sid = Number(r.subscriber_id);
    if (!out.has(sid)) out.set(sid, new Map());
    out.get(sid)!.set(Number(r.field_type_id), r.value);
  }
  return out;
}
