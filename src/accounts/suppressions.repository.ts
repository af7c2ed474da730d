/** SQL for the account's suppression list and its email settings. */
import type { Selectable } from 'kysely';
import type { EmailSuppressionsTable, Queryable } from '../db/types.ts';

/** A suppression row. */
export type SuppressionRow = Selectable<EmailSuppressionsTable>;

/** Addresses per statement (keeps under every dialect's parameter limit). */
const CHUNK = 500;

/** Adds an address (first reason wins; a later bounce of a listed address changes nothing). */
export async function insertSuppression(db: Queryable, row: SuppressionRow): Promise<void> {
  await db
    .insertInto('email_suppressions')
    .values(row)
    .onConflict((oc) => oc.columns(['customer_id', 'address']).doNothing())
    .execute();
}

/** The account's suppressed addresses, newest first, after `before` (a created_at/address cursor) when given. */
export async function listSuppressions(
  db: Queryable,
  customerId: number,
  limit: number,
  offset: number,
): Promise<SuppressionRow[]> {
  return db
    .selectFrom('email_suppressions')
    .selectAll()
    .where('customer_id', '=', customerId)
    .orderBy('created_at', 'desc')
    .orderBy('address')
    .limit(limit)
    .offset(offset)
    .execute();
}

/** One suppressed address of the account. */
export async function findSuppression(
  db: Queryable,
  customerId: number,
  address: string,
): Promise<SuppressionRow | undefined> {
  return db
    .selectFrom('email_suppressions')
    .selectAll()
    .where('customer_id', '=', customerId)
    .where('address', '=', address)
    .executeTakeFirst();
}

/** Removes an address; returns whether it was listed. */
export async function deleteSuppression(
  db: Queryable,
  customerId: number,
  address: string,
): Promise<boolean> {
  const r = await db
    .deleteFrom('email_suppressions')
    .where('customer_id', '=', customerId)
    .where('address', '=', address)
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** The reasons of those of `addresses` (lower-cased) that the account suppresses. */
export async function suppressedAmong(
  db: Queryable,
  customerId: number,
  addresses: string[],
): Promise<Map<string, SuppressionRow>> {
  const out = new Map<string, SuppressionRow>();
  for (let i = 0; i < addresses.length; i += CHUNK) {
    const rows = await db
      .selectFrom('email_suppressions')
      .selectAll()
      .where('customer_id', '=', customerId)
      .where('address', 'in', addresses.slice(i, i + CHUNK))
      .execute();
    for (const r of rows) out.set(r.address, r);
  }
  return out;
}

/** Whether the account keeps and applies its suppression list (on unless turned off). */
export async function suppressionListOn(db: Queryable, customerId: number): Promise<boolean> {
  const row = await db
    .selectFrom('email_settings')
    .select('suppression_list')
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
  return row ? row.suppression_list === 1 : true;
}

/** Turns the account's suppression list on or off. */
export async function saveSuppressionListOn(
  db: Queryable,
  customerId: number,
  on: boolean,
  now: number,
): Promise<void> {
  const value = on ? 1 : 0;
  await db
    .insertInto('email_settings')
    .values({ customer_id: customerId, suppression_list: value, updated_at: now })
    .onConflict((oc) => oc.column('customer_id').doUpdateSet({ suppression_list: value, updated_at: now }))
    .execute();
}
