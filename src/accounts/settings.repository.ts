/** SQL for an account's marketing settings and the suppression look-up transactional sends make. */
import type { MarketingSettingsTable, Queryable } from '../db/types.ts';

/** Addresses per statement (keeps under every dialect's parameter limit). */
const CHUNK = 500;

/** The stored settings of an account, if it ever changed them. */
export async function findSettings(db: Queryable, customerId: number) {
  return db
    .selectFrom('marketing_settings')
    .select([
      'suppress_transactional',
      'postal_address',
      'brand_name',
      'brand_color',
      'brand_logo_id',
      'updated_at',
    ])
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
}

/** Stores whether transactional sends of the account skip globally unsubscribed addresses. */
export async function saveSuppressTransactional(
  db: Queryable,
  customerId: number,
  on: boolean,
  now: number,
): Promise<void> {
  await upsertSettings(db, customerId, { suppress_transactional: on ? 1 : 0 }, now);
}

/** Stores the account's postal address (null removes it). */
export async function savePostalAddress(
  db: Queryable,
  customerId: number,
  address: string | null,
  now: number,
): Promise<void> {
  await upsertSettings(db, customerId, { postal_address: address }, now);
}

/** The lower-cased emails among `keys` whose subscriber of the account unsubscribed globally (one indexed look-up per chunk). */
export async function globallyUnsubscribed(
  db: Queryable,
  customerId: number,
  keys: string[],
): Promise<Set<string>> {
  const out = new Set<string>();
  for (let i = 0; i < keys.length; i += CHUNK) {
    const rows = await db
      .selectFrom('subscribers')
      .select('email_key')
      .where('customer_id', '=', customerId)
      .where('email_key', 'in', keys.slice(i, i + CHUNK))
      .where('unsubscribed', '=', 1)
      .execute();
    for (const r of rows) out.add(r.email_key);
  }
  return out;
}

/** Stores the account's brand: display name, colour and logo (null removes each). */
export async function saveBrand(
  db: Queryable,
  customerId: number,
  brand: { brand_name: string | null; brand_color: string | null; brand_logo_id: string | null },
  now: number,
): Promise<void> {
  await upsertSettings(db, customerId, brand, now);
}

/** Writes `change` to the account's settings row, creating it (transactional suppression off) when there is none. */
async function upsertSettings(
  db: Queryable,
  customerId: number,
  change: Partial<Omit<MarketingSettingsTable, 'customer_id' | 'updated_at'>>,
  now: number,
): Promise<void> {
  await db
    .insertInto('marketing_settings')
    .values({ customer_id: customerId, suppress_transactional: 0, ...change, updated_at: now })
    .onConflict((oc) => oc.column('customer_id').doUpdateSet({ ...change, updated_at: now }))
    .execute();
}
