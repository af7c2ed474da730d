/** SQL of the audit trail: append, search newest first, and the retention purge. There is no update and no other delete. */
import type { Insertable, Selectable } from 'kysely';
import type { AuditLogTable, Queryable } from '../db/types.ts';

/** A stored audit entry. */
export type AuditRow = Selectable<AuditLogTable>;

/** Appends one entry. */
export async function insertAuditEntry(db: Queryable, row: Insertable<AuditLogTable>): Promise<void> {
  await db.insertInto('audit_log').values(row).execute();
}

/** Filters of an audit search; every one optional. `before` is an id to page from (exclusive). */
export interface AuditFilter {
  customerId: number;
  action?: string;
  target?: string;
  actorId?: string;
  from?: number;
  to?: number;
  before?: number;
  limit: number;
}

/** Entries of one account matching the filter, newest first. */
export async function selectAuditEntries(db: Queryable, f: AuditFilter): Promise<AuditRow[]> {
  let q = db.selectFrom('audit_log').selectAll().where('customer_id', '=', f.customerId);
  if (f.action) q = q.where('action', '=', f.action);
  if (f.target) q = q.where('target', '=', f.target);
  if (f.actorId) q = q.where('actor_id', '=', f.actorId);
  if (f.from !== undefined) q = q.where('at', '>=', f.from);
  if (f.to !== undefined) q = q.where('at', '<', f.to);
  if (f.before !== undefined) q = q.where('id', '<', f.before);
  return q.orderBy('id', 'desc').limit(f.limit).execute();
}

/** Removes entries older than `cutoff`, at most `batch` at a time; returns how many went. */
export async function deleteAuditEntriesBefore(
  db: Queryable,
  cutoff: number,
  batch: number,
): Promise<number> {
  const ids = db.selectFrom('audit_log').select('id').where('at', '<', cutoff).orderBy('id').limit(batch);
  const res = await db.deleteFrom('audit_log').where('id', 'in', ids).executeTakeFirst();
  return Number(res.numDeletedRows);
}
