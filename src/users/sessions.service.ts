/**
 * Console sessions: a random cookie token per signed-in browser; the database keeps only its SHA-256, the user, a CSRF
 * token, the last activity and the absolute end. A session idle for longer than the idle timeout, or past its end, is
 * gone; a disabled user's sessions stop working at once.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config/schema.ts';
import type { Queryable } from '../db/types.ts';
import { hashToken, toUser, type User } from './users.service.ts';
import { findUserById } from './users.repository.ts';
import {
  deleteSession,
  deleteStaleSessions,
  findSession,
  insertSession,
  takeFlash,
  updateSession,
} from './sessions.repository.ts';

/** A resolved session and its user. */
export interface Session {
  id: string;
  state: 'active' | 'second_factor';
  csrfToken: string;
  actingCustomerId: number | null;
  user: User;
}

/** A one-time notice shown on the next page. */
export interface Flash {
  kind: 'success' | 'error' | 'info';
  text: string;
}

/** Opens a session for a user; returns the cookie token (never stored). */
export async function openSession(
  db: Queryable,
  config: Config,
  userId: string,
  state: Session['state'],
  ip: string | null,
): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  const now = Date.now();
  await insertSession(db, {
    id: hashToken(token),
    user_id: userId,
    state,
    csrf_token: randomBytes(24).toString('base64url'),
    ip,
    created_at: now,
    last_seen_at: now,
    expires_at: now + config.consoleSessionMaxHours * 3_600_000,
  });
  return token;
}

/**
 * How stale a session's last activity may be before a request writes it again: a tenth of the idle timeout, at most a
 * minute. A page that polls every second would otherwise write (and, on the embedded database, sync the disk) on every
 * poll; an idle session ends at most a tenth of the timeout early.
 */
function refreshAfterMs(config: Config): number {
  return Math.min(60_000, config.consoleIdleTimeoutSeconds * 100);
}

/** The live session of a cookie token, its activity refreshed; undefined when unknown, idle too long, ended or disabled. */
export async function resolveSession(
  db: Queryable,
  config: Config,
  token: string | undefined,
): Promise<Session | undefined> {
  if (!token) return undefined;
  const id = hashToken(token);
  const row = await findSession(db, id);
  if (!row) return undefined;
  const now = Date.now();
  if (
    Number(row.expires_at) <= now ||
    Number(row.last_seen_at) + config.consoleIdleTimeoutSeconds * 1000 <= now
  ) {
    await deleteSession(db, id);
    return undefined;
  }
  const userRow = await findUserById(db, row.user_id);
  if (!userRow || userRow.disabled_at !== null) {
    await deleteSession(db, id);
    return undefined;
  }
  if (now - Number(row.last_seen_at) >= refreshAfterMs(config))
    await updateSession(db, id, { last_seen_at: now });
  return {
    id,
    state: row.state,
    csrfToken: row.csrf_token,
    actingCustomerId: row.acting_customer_id === null ? null : Number(row.acting_customer_id),
    user: toUser(userRow),
  };
}

/** Turns a session waiting for its second factor into an active one. */
export async function activateSession(db: Queryable, sessionId: string): Promise<void> {
  await updateSession(db, sessionId, { state: 'active' });
}

/** Ends a session. */
export async function closeSession(db: Queryable, sessionId: string): Promise<void> {
  await deleteSession(db, sessionId);
}

/** True when `given` is the session's CSRF token (compared in constant time). */
export function csrfMatches(session: Session, given: unknown): boolean {
  if (typeof given !== 'string' || given.length === 0) return false;
  const a = Buffer.from(session.csrfToken);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Stores a notice for the session's next page. */
export async function setFlash(db: Queryable, sessionId: string, flash: Flash): Promise<void> {
  await updateSession(db, sessionId, { flash: JSON.stringify(flash) });
}

/** Takes the notice stored for this page, if any. */
export async function popFlash(db: Queryable, sessionId: string): Promise<Flash | undefined> {
  const text = await takeFlash(db, sessionId);
  return text ? (JSON.parse(text) as Flash) : undefined;
}

/** Makes an operator's session look at another account (null: their own). */
export async function actAs(db: Queryable, sessionId: string, customerId: number | null): Promise<void> {
  await updateSession(db, sessionId, { acting_customer_id: customerId });
}

/**
 * Removes sessions that ended or went idle; called by the retention job. An idle session's row stays for a while
 * after it stopped working, so a form posted on it can still be kept for its user (see `idleSessionUser`).
 */
export async function purgeSessions(db: Queryable, config: Config, now = Date.now()): Promise<number> {
  return deleteStaleSessions(db, now, now - config.consoleIdleTimeoutSeconds * 1000 - IDLE_ROW_KEPT_MS);
}

/** How long an idle session's row outlives the session. */
const IDLE_ROW_KEPT_MS = 2 * 3_600_000;

/**
 * The user of a signed-in session that ended by idleness (read before `resolveSession` removes its row) when `csrf`
 * is that session's form token, or undefined: a form posted on it is kept for that user only.
 */
export async function idleSessionUser(
  db: Queryable,
  config: Config,
  token: string | undefined,
  csrf: unknown,
  now = Date.now(),
): Promise<string | undefined> {
  if (!token) return undefined;
  const row = await findSession(db, hashToken(token));
  if (!row || row.state !== 'active' || Number(row.expires_at) <= now) return undefined;
  const idle = Number(row.last_seen_at) + config.consoleIdleTimeoutSeconds * 1000 <= now;
  const sameForm = csrfMatches({ csrfToken: row.csrf_token } as Session, csrf);
  return idle && sameForm ? row.user_id : undefined;
}

/** Marks a session active now (the console's "stay signed in"). */
export async function touchSession(db: Queryable, sessionId: string, now = Date.now()): Promise<void> {
  await updateSession(db, sessionId, { last_seen_at: now });
}
