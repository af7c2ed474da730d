/**
 * Console drafts: the fields of a form posted after its session went idle, sealed with the master key for the user
 * whose session it was, kept for half an hour. After signing in again the user's page asks for them once and fills the
 * form in; nothing else can read them, and they never reach a log.
 */
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { deleteExpiredDrafts, insertDraft, takeDraftRow } from './drafts.repository.ts';

/** How long a draft waits for its user to sign in again. */
export const DRAFT_TTL_MS = 30 * 60_000;

/** A form's fields as posted (a repeated field is a list). */
export type DraftFields = Record<string, string | string[]>;

/** Keeps a posted form for the user; answers the draft's id. */
export async function saveDraft(
  ctx: AppContext,
  userId: string,
  path: string,
  fields: DraftFields,
  now = Date.now(),
): Promise<string> {
  const id = randomBytes(18).toString('base64url');
  await insertDraft(ctx.database.db, {
    id,
    user_id: userId,
    path,
    sealed: ctx.sealer.seal(JSON.stringify(fields), `console-draft:${id}:${userId}`),
    created_at: now,
    expires_at: now + DRAFT_TTL_MS,
  });
  return id;
}

/** The user's draft, once: its form's action and fields; undefined when unknown, expired, taken or someone else's. */
export async function takeDraft(
  ctx: AppContext,
  userId: string,
  id: string,
  now = Date.now(),
): Promise<{ path: string; fields: DraftFields } | undefined> {
  const row = await takeDraftRow(ctx.database.db, id, userId, now);
  if (!row) return undefined;
  const fields = JSON.parse(ctx.sealer.openText(row.sealed, `console-draft:${id}:${userId}`)) as DraftFields;
  return { path: row.path, fields };
}

/** Removes drafts nobody came back for; called by the console housekeeping task. */
export async function purgeDrafts(ctx: AppContext, now = Date.now()): Promise<number> {
  return deleteExpiredDrafts(ctx.database.db, now);
}
