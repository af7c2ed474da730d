/**
 * SQL of what marketing deliveries change on the send and the mailing they belong to: the counters their outcomes and
 * engagement add, the send's completion once its last delivery settles, and the send's state as a delivery's gate reads
 * it. Campaign sends use the same state lock and completion (see campaigns/sends.service.ts and campaigns/expand.ts).
 */
import { sql } from 'kysely';
import type { Dialect } from '../../db/connect.ts';
import { precompile } from '../../db/precompiled.ts';
import type { Queryable } from '../../db/types.ts';

/** Counter columns a send and its mailing share. */
export type CampaignCounter =
  | 'sent_count'
  | 'delivered_count'
  | 'viewed_count'
  | 'clicked_count'
  | 'bounced_count'
  | 'soft_bounced_count'
  | 'hard_bounced_count'
  | 'unsubscribed_count'
  | 'global_unsubscribed_count';

// The marketing gate reads it for every delivery of a send (see db/precompiled.ts).
const sendStateQuery = precompile((db, v: { id: number }) =>
  db.selectFrom('campaign_mailing_sends').select('state').where('id', '=', v.id),
);

/** The send's state, locking its row on PostgreSQL (unless `lock` is false) so that pause and resume wait for this transaction. */
export async function lockSendState(
  db: Queryable,
  dialect: Dialect,
  id: number,
  lock = true,
): Promise<string | undefined> {
  if (!(lock && dialect === 'postgres')) return (await sendStateQuery(db, { id })).rows[0]?.state;
  const row = await db
    .selectFrom('campaign_mailing_sends')
    .select('state')
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
  return row?.state;
}

/** Adds to counters of a send (when there is one: drip emails have none) and of its mailing. */
export async function bumpCampaign(
  db: Queryable,
  sendId: number | null,
  mailingId: number,
  counters: Partial<Record<CampaignCounter, number>>,
  now: number,
): Promise<void> {
  if (!Object.values(counters).some((v) => v !== 0)) return;
  if (sendId !== null) await addToSend(db, sendId, counters, 0, now);
  await addToMailing(db, mailingId, counters);
}

/** The SET of an increment of each non-zero counter. */
function increments(counters: Partial<Record<string, number>>) {
  return Object.fromEntries(
    Object.entries(counters)
      .filter(([, by]) => by !== 0)
      .map(([col, by]) => [col, sql`${sql.ref(col)} + ${by}`]),
  );
}

/** Adds to a send's counters and to its count of settled deliveries, in one statement. */
export async function addToSend(
  db: Queryable,
  sendId: number,
  counters: Partial<Record<CampaignCounter, number>>,
  settled: number,
  now: number,
): Promise<void> {
  await db
    .updateTable('campaign_mailing_sends')
    .set({ ...increments({ ...counters, settled_count: settled }), updated_at: now })
    .where('id', '=', sendId)
    .execute();
}

/** Adds to a mailing's counters. */
export async function addToMailing(
  db: Queryable,
  mailingId: number,
  counters: Partial<Record<CampaignCounter, number>>,
): Promise<void> {
  const set = increments(counters);
  if (Object.keys(set).length > 0)
    await db.updateTable('campaign_mailings').set(set).where('id', '=', mailingId).execute();
}

/** Marks a send sent once it is fully expanded and every audience delivery settled. */
export async function finishIfSettled(db: Queryable, sendId: number, now: number): Promise<boolean> {
  const r = await db
    .updateTable('campaign_mailing_sends')
    .set({ state: 'sent', finished_at: now, updated_at: now })
    .where('id', '=', sendId)
    .where('state', '=', 'sending')
    .whereRef('settled_count', '>=', 'audience_count')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}
