/**
 * Fast recovery after a crash: a worker's lease owner is `<node>:<pid>:<run>`, so a worker starting on a node can tell
 * the rows its node's earlier runs still hold. Those of a process that no longer lives (or of an earlier process with
 * this very pid, as in a restarted container) are reclaimed at once instead of waiting out their lease; rows of a
 * process still alive on this node, and of other nodes, keep waiting for their lease to expire.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Queryable } from '../db/types.ts';
import { expireLeases, runningOwners } from './jobs.repository.ts';

/** The lease owner of a worker run: node name, process id and a run id. */
export function leaseOwner(node: string, pid = process.pid): string {
  return `${node}:${pid}:${randomUUID().slice(0, 8)}`;
}

/** True when no process with this pid is alive here. */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Reclaims the leases earlier, dead runs of this node hold; returns how many rows become claimable now. */
export async function reclaimNodeLeases(
  db: Queryable,
  node: string,
  self: string,
  log: Logger,
  now = Date.now(),
): Promise<number> {
  const dead = (await runningOwners(db, `${node}:`)).filter((owner) => {
    if (owner === self) return false;
    const pid = Number(owner.slice(node.length + 1).split(':', 1)[0]);
    if (!Number.isInteger(pid) || pid <= 0) return false;
    return pid === process.pid || gone(pid);
  });
  const count = await expireLeases(db, dead, now);
  if (count > 0)
    log.info(
      { node, rows: count, runs: dead.length },
      'reclaimed work rows an earlier run of this node held',
    );
  return count;
}
