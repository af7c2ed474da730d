/** SQL of the `worker_nodes` table: the heartbeat each running worker renews, and the removal of dead workers' rows. */
import type { Queryable } from '../db/types.ts';

/** Records a beat of `owner`, adding its row when it has none (a first beat, or after it was taken for dead). */
export async function beat(db: Queryable, owner: string, node: string, now: number): Promise<void> {
  await db
    .insertInto('worker_nodes')
    .values({ owner, node, started_at: now, last_seen: now })
    .onConflict((oc) => oc.column('owner').doUpdateSet({ last_seen: now }))
    .execute();
}

/** The workers whose latest beat is older than `before`. */
export async function silentWorkers(db: Queryable, before: number): Promise<string[]> {
  const rows = await db.selectFrom('worker_nodes').select('owner').where('last_seen', '<', before).execute();
  return rows.map((r) => r.owner);
}

/** Removes the heartbeat rows of `owners` whose latest beat is still older than `before`. */
export async function forgetWorkers(db: Queryable, owners: string[], before: number): Promise<void> {
  if (owners.length === 0) return;
  await db.deleteFrom('worker_nodes').where('owner', 'in', owners).where('last_seen', '<', before).execute();
}

/** The latest beat of any worker on `node`; undefined when none has beaten there. */
export async function lastBeatOfNode(db: Queryable, node: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('worker_nodes')
    .select((eb) => eb.fn.max('last_seen').as('last_seen'))
    .where('node', '=', node)
    .executeTakeFirst();
  return row?.last_seen === null || row?.last_seen === undefined ? undefined : Number(row.last_seen);
}
