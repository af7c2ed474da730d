/**
 * Secrets the console shows once. The action that makes a secret (a new API key, a webhook signing secret) stores it
 * sealed under a random token and redirects to a page named by that token; the page shows it to the session that made
 * it, once, within a few minutes. Afterwards, on a reload, the back button or a second visit, the page only says that
 * the secret was shown. The token itself is never stored, only its SHA-256.
 */
import { randomBytes } from 'node:crypto';
import type { Sealer } from '../crypto/sealer.ts';
import type { Queryable } from '../db/types.ts';
import { hashToken } from './users.service.ts';
import { findReveal, insertReveal, markRevealShown, purgeReveals } from './reveals.repository.ts';

/** How long the one-time page shows its secret after the action that made it. */
export const REVEAL_TTL_MS = 10 * 60_000;

/** How long a shown page is kept, so that a later visit can say it was shown. */
const REVEAL_KEEP_MS = 86_400_000;

/** What a one-time page finds: its secret (the first time), that it was shown, or nothing for this session. */
export type Reveal<T> = { state: 'fresh'; value: T } | { state: 'shown' } | { state: 'expired' };

const aad = (id: string, kind: string): string => `reveal:${kind}:${id}`;

/** Stores a secret for one showing by `sessionId`; returns the token that names its page. */
export async function createReveal(
  db: Queryable,
  sealer: Sealer,
  sessionId: string,
  kind: string,
  value: unknown,
  now = Date.now(),
): Promise<string> {
  const token = randomBytes(24).toString('base64url');
  const id = hashToken(token);
  await insertReveal(db, {
    id,
    session_id: sessionId,
    kind,
    sealed: sealer.seal(JSON.stringify(value), aad(id, kind)),
    created_at: now,
    expires_at: now + REVEAL_TTL_MS,
    shown_at: null,
  });
  return token;
}

/**
 * Takes the secret of a one-time page for `sessionId`: the first call within the time limit gets it, and the page is
 * spent at once; a later call, another session or another kind of page learns only that it was shown or is gone.
 */
export async function takeReveal<T>(
  db: Queryable,
  sealer: Sealer,
  sessionId: string,
  kind: string,
  token: string,
  now = Date.now(),
): Promise<Reveal<T>> {
  const id = hashToken(token);
  const row = await findReveal(db, id);
  if (!row || row.session_id !== sessionId || row.kind !== kind) return { state: 'expired' };
  if (row.shown_at !== null) return { state: 'shown' };
  if (row.sealed === null || !(await markRevealShown(db, id, now))) {
    return Number(row.expires_at) <= now ? { state: 'expired' } : { state: 'shown' };
  }
  return { state: 'fresh', value: JSON.parse(sealer.openText(row.sealed, aad(id, kind))) as T };
}

/** Drops expired secrets and old one-time pages; called by the console's housekeeping. */
export async function purgeOldReveals(db: Queryable, now = Date.now()): Promise<void> {
  await purgeReveals(db, now, now - REVEAL_KEEP_MS);
}
