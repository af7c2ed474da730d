/**
 * The audit trail: an append-only record of who did what to which thing, from where and when. Any feature calls
 * `record` (in its own transaction when it has one, so the entry and the change commit together). Entries are never
 * updated; the only delete is the retention purge.
 */
import type { Queryable } from '../db/types.ts';
import {
  deleteAuditEntriesBefore,
  insertAuditEntry,
  selectAuditEntries,
  type AuditFilter,
  type AuditRow,
} from './audit.repository.ts';

/** Who acted: a console user (user id), an API key (key id), a recipient by address (the secure page), or Sealpost
 * itself / the command line. */
export interface AuditActor {
  type: 'user' | 'key' | 'recipient' | 'system';
  id: string;
}

/** Who asks for a change, and from where: what every service that changes audited things takes, and records. */
export interface ChangeBy {
  actor: AuditActor;
  ip?: string | null;
}

/** Changes made from the command line. */
export const CLI_CHANGE: ChangeBy = { actor: { type: 'system', id: 'cli' } };

/** One audit entry to record. `target` names the thing acted on (`message:<id>`, `user:<id>`, `key:<id>` ...). */
export interface AuditEntry {
  /** The account the entry belongs to; null for installation-wide entries. */
  accountId: number | null;
  actor: AuditActor;
  /** A dotted verb: `sign_in.success`, `key.create`, `message.content_read` ... (docs/console.md lists them). */
  action: string;
  target: string;
  ip?: string | null;
  /** When it happened; now by default. */
  at?: number;
  /** Extra facts (never protected content). */
  detail?: Record<string, unknown>;
}

/** An audit entry as pages and exports show it. */
export interface AuditView {
  id: number;
  at: string;
  actor_type: AuditActor['type'];
  actor_id: string;
  action: string;
  target: string;
  ip: string | null;
  detail: Record<string, unknown>;
}

/** Appends an entry to the audit trail. */
export async function record(db: Queryable, entry: AuditEntry): Promise<void> {
  await insertAuditEntry(db, {
    customer_id: entry.accountId,
    actor_type: entry.actor.type,
    actor_id: entry.actor.id,
    action: entry.action,
    target: entry.target,
    ip: entry.ip ?? null,
    at: entry.at ?? Date.now(),
    detail: JSON.stringify(entry.detail ?? {}),
  });
}

function toView(row: AuditRow): AuditView {
  return {
    id: Number(row.id),
    at: new Date(Number(row.at)).toISOString(),
    actor_type: row.actor_type,
    actor_id: row.actor_id,
    action: row.action,
    target: row.target,
    ip: row.ip,
    detail: JSON.parse(row.detail) as Record<string, unknown>,
  };
}

/** An account's entries matching the filter, newest first. */
export async function searchAudit(db: Queryable, filter: AuditFilter): Promise<AuditView[]> {
  return (await selectAuditEntries(db, filter)).map(toView);
}

/** Removes entries older than `days` days, in batches; returns how many went. Called by the retention job only. */
export async function purgeAudit(db: Queryable, days: number, now = Date.now()): Promise<number> {
  const cutoff = now - days * 86_400_000;
  let total = 0;
  for (;;) {
    const n = await deleteAuditEntriesBefore(db, cutoff, 1000);
    total += n;
    if (n < 1000) return total;
  }
}

export type { AuditFilter };
