/** SQL of the `leases` table: the named lease the scheduler leader holds, taken, renewed and released by its owner. */
import type { Queryable } from '../db/types.ts';

/** Takes the lease when it is free or expired, or renews the owner's own, until `until`. */
export async function takeLease(
  db: Queryable,
  name: string,
  owner: string,
  until: number,
  now: number,
): Promise<void> {
  await db
    .insertInto('leases')
    .values({ name, owner, lease_until: until })
    .onConflict((oc) =>
      oc
        .column('name')
        .doUpdateSet({ owner, lease_until: until })
        .where((eb) => eb.or([eb('leases.owner', '=', owner), eb('leases.lease_until', '<', now)])),
    )
    .execute();
}

/** The current owner of a lease, if any. */
export async function leaseOwner(db: Queryable, name: string): Promise<string | undefined> {
  return (await db.selectFrom('leases').select('owner').where('name', '=', name).executeTakeFirst())?.owner;
}

/** Releases a lease held by `owner`. */
export async function releaseLease(db: Queryable, name: string, owner: string): Promise<void> {
  await db.deleteFrom('leases').where('name', '=', name).where('owner', '=', owner).execute();
}
