/** SQL of an account's security settings (whether two-factor is mandatory). */
import type { Queryable } from '../db/types.ts';

/** True when the account requires two-factor sign-in. */
export async function selectRequireTotp(db: Queryable, customerId: number): Promise<boolean> {
  const row = await db
    .selectFrom('account_security')
    .select('require_totp')
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
  return row?.require_totp === 1;
}

/** Sets whether the account requires two-factor sign-in. */
export async function upsertRequireTotp(
  db: Queryable,
  customerId: number,
  required: boolean,
  now: number,
): Promise<void> {
  await db
    .insertInto('account_security')
    .values({ customer_id: customerId, require_totp: required ? 1 : 0, updated_at: now })
    .onConflict((oc) =>
      oc.column('customer_id').doUpdateSet({ require_totp: required ? 1 : 0, updated_at: now }),
    )
    .execute();
}
