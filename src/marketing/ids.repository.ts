/** SQL of marketing ids: from an id as sent (UUID or integer) to the row's integer key, and back. */
import type { Queryable } from '../db/types.ts';
import { isDefaultListRef, parseRef } from './ids.ts';

/** The account-owned tables whose rows have a public UUID. */
export type UuidTable =
  | 'subscription_lists'
  | 'dynamic_lists'
  | 'subscribers'
  | 'campaign_mailings'
  | 'campaign_mailing_sends'
  | 'marketing_deliveries'
  | 'drip_campaigns'
  | 'subscriber_custom_field_types';

/**
 * The integer key of the account's row named by `raw` (`default` names the default list); null when malformed, unknown
 * or another account's.
 */
export async function resolveId(
  db: Queryable,
  table: UuidTable,
  customerId: number,
  raw: string | number | undefined | null,
): Promise<number | null> {
  if (table === 'subscription_lists' && isDefaultListRef(raw)) return defaultListKey(db, customerId);
  const ref = parseRef(raw);
  if (ref === null) return null;
  const q = db.selectFrom(table).select('id').where('customer_id', '=', customerId);
  const row = await (
    'uuid' in ref ? q.where('uuid', '=', ref.uuid) : q.where('id', '=', ref.id)
  ).executeTakeFirst();
  return row === undefined ? null : Number(row.id);
}

async function defaultListKey(db: Queryable, customerId: number): Promise<number | null> {
  const row = await db
    .selectFrom('subscription_lists')
    .select('id')
    .where('customer_id', '=', customerId)
    .where('is_default', '=', 1)
    .executeTakeFirst();
  return row === undefined ? null : Number(row.id);
}

/** The integer keys of the account's rows named by `raws`, in order, skipping those not found. */
export async function resolveIds(
  db: Queryable,
  table: UuidTable,
  customerId: number,
  raws: readonly (string | number)[],
): Promise<number[]> {
  const byRef = await keysByRef(db, table, customerId, raws);
  const out: number[] = [];
  for (const raw of raws) {
    const id = byRef.get(refText(raw));
    if (id !== undefined && !out.includes(id)) out.push(id);
  }
  return out;
}

/** An id as sent, in one spelling per row: a lower-cased UUID, or the integer as digits; '' when it is neither. */
export function refText(raw: string | number): string {
  const ref = parseRef(raw);
  return ref === null ? '' : 'uuid' in ref ? ref.uuid : String(ref.id);
}

/** The account's rows named by `raws`: each found id as sent (in `refText` spelling) → its integer key. */
export async function keysByRef(
  db: Queryable,
  table: UuidTable,
  customerId: number,
  raws: readonly (string | number)[],
): Promise<Map<string, number>> {
  const refs = raws.map(parseRef).filter((r) => r !== null);
  const uuids = refs.flatMap((r) => ('uuid' in r ? [r.uuid] : []));
  const ints = refs.flatMap((r) => ('id' in r ? [r.id] : []));
  if (uuids.length === 0 && ints.length === 0) return new Map();
  const rows = await db
    .selectFrom(table)
    .select(['id', 'uuid'])
    .where('customer_id', '=', customerId)
    .where((eb) =>
      eb.or([
        ...(uuids.length > 0 ? [eb('uuid', 'in', uuids)] : []),
        ...(ints.length > 0 ? [eb('id', 'in', ints)] : []),
      ]),
    )
    .execute();
  const out = new Map<string, number>();
  const wantedInts = new Set(ints);
  for (const r of rows) {
    out.set(r.uuid, Number(r.id));
    if (wantedInts.has(Number(r.id))) out.set(String(r.id), Number(r.id));
  }
  return out;
}

/** Which of these integer keys still name a row (a foreign id whose row was deleted since shows as null). */
export async function existingKeys(
  db: Queryable,
  table: UuidTable,
  ids: readonly (number | bigint | null | undefined)[],
): Promise<Set<number>> {
  const wanted = [...new Set(ids.filter((i) => i !== null && i !== undefined).map(Number))];
  if (wanted.length === 0) return new Set();
  const rows = await db.selectFrom(table).select('id').where('id', 'in', wanted).execute();
  return new Set(rows.map((r) => Number(r.id)));
}
