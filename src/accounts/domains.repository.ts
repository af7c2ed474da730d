/** SQL for sending domains. */
import type { Selectable } from 'kysely';
import type { DomainsTable, Queryable } from '../db/types.ts';
import { precompile } from '../db/precompiled.ts';

/** A domain row. */
export type DomainRow = Selectable<DomainsTable>;

/** Inserts a domain and returns it. */
export async function insertDomain(db: Queryable, row: DomainRow): Promise<DomainRow> {
  return db.insertInto('domains').values(row).returningAll().executeTakeFirstOrThrow();
}

/** Finds an account's domain by name. */
export async function findDomain(
  db: Queryable,
  customerId: number,
  name: string,
): Promise<DomainRow | undefined> {
  return db
    .selectFrom('domains')
    .selectAll()
    .where('customer_id', '=', customerId)
    .where('name', '=', name)
    .executeTakeFirst();
}

/** Lists an account's domains by name. */
export async function listDomains(db: Queryable, customerId: number): Promise<DomainRow[]> {
  return db.selectFrom('domains').selectAll().where('customer_id', '=', customerId).orderBy('name').execute();
}

/** Marks a domain verified at `now`. */
export async function markDomainVerified(db: Queryable, id: string, now: number): Promise<void> {
  await db
    .updateTable('domains')
    .set({ verified: 1, verified_at: now, verified_without_dns: 0 })
    .where('id', '=', id)
    .execute();
}

/** A verified domain of an account with its sealed DKIM key, for signing. */
export async function findVerifiedDomain(db: Queryable, customerId: number, name: string) {
  return db
    .selectFrom('domains')
    .select(['id', 'name', 'dkim_selector', 'dkim_private_key', 'dkim2_selector', 'dkim2_private_key'])
    .where('customer_id', '=', customerId)
    .where('name', '=', name)
    .where('verified', '=', 1)
    .executeTakeFirst();
}

// Every send runs this, so it is compiled once (see db/precompiled.ts).
const listVerifiedDomainsQuery = precompile((db, d: { customerId: number }) =>
  db
    .selectFrom('domains')
    .select(['id', 'name'])
    .where('customer_id', '=', d.customerId)
    .where('verified', '=', 1),
);

/** The verified domains of an account: id and name only (the cheap look-up a send needs). */
export async function listVerifiedDomains(
  db: Queryable,
  customerId: number,
): Promise<{ id: string; name: string }[]> {
  return (await listVerifiedDomainsQuery(db, { customerId })).rows;
}

/** Every verified domain of every account, by name (what `sealpost doctor` checks). */
export async function listAllVerifiedDomains(db: Queryable): Promise<DomainRow[]> {
  return db.selectFrom('domains').selectAll().where('verified', '=', 1).orderBy('name').execute();
}

/** One domain with a sealed DKIM key, the first added: what a master-key check tries to open. */
export async function firstSealedDomain(
  db: Queryable,
): Promise<{ id: string; dkim_private_key: string } | undefined> {
  return db
    .selectFrom('domains')
    .select(['id', 'dkim_private_key'])
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
}
