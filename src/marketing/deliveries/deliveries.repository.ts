/**
 * SQL of marketing deliveries: loading one with what its email needs, moving it between states, and its engagement
 * counters. Recording an attempt's outcome is in outcomes.repository.ts.
 */
import { sql, type Selectable } from 'kysely';
import type { MarketingDeliveriesTable, Queryable } from '../../db/types.ts';
import { precompile } from '../../db/precompiled.ts';

export type DeliveryRow = Selectable<MarketingDeliveriesTable>;

/** Statuses after which a delivery is never attempted again. */
export const FINAL_STATUSES = ['delivered', 'failed', 'skipped'] as const;

// The delivery lane reads a delivery for every recipient of a send, so the statement is compiled once (see
// db/precompiled.ts).
const findDeliveryQuery = precompile((db, v: { id: number }) =>
  db.selectFrom('marketing_deliveries').selectAll().where('id', '=', v.id),
);

export async function findDeliveryRow(db: Queryable, id: number): Promise<DeliveryRow | undefined> {
  return (await findDeliveryQuery(db, { id })).rows[0];
}

/** The columns of a delivery that its gate and its load read. */
const LANE_COLUMNS = [
  'id',
  'customer_id',
  'send_id',
  'campaign_mailing_id',
  'drip_enrollment_id',
  'subscriber_id',
  'email',
  'status',
  'header_message_id',
  'created_at',
] as const;

/** A delivery as the delivery lane reads it before an attempt. */
export type LaneDelivery = Pick<DeliveryRow, (typeof LANE_COLUMNS)[number]>;

// Read before every attempt: only the columns the lane uses (a row of every column costs more than twice as much).
const findLaneDeliveryQuery = precompile((db, v: { id: number }) =>
  db.selectFrom('marketing_deliveries').select(LANE_COLUMNS).where('id', '=', v.id),
);

/** The delivery `id` as the lane's gate and load read it. */
export async function findLaneDelivery(db: Queryable, id: number): Promise<LaneDelivery | undefined> {
  return (await findLaneDeliveryQuery(db, { id })).rows[0];
}

/** Where a delivery's email comes from. */
export type TemplateSource = NonNullable<Awaited<ReturnType<typeof findTemplateSource>>>;

/** The content source of a delivery: its send's frozen content, or (drip steps) its mailing. */
export async function findTemplateSource(
  db: Queryable,
  d: Pick<DeliveryRow, 'send_id' | 'campaign_mailing_id'>,
) {
  if (d.send_id !== null)
    return db
      .selectFrom('campaign_mailing_sends')
      .select(['content', 'state', 'subscription_list_id', 'subscription_list_name'])
      .where('id', '=', d.send_id)
      .executeTakeFirst()
      .then((r) => r && { kind: 'send' as const, ...r });
  if (d.campaign_mailing_id === null) return undefined;
  return db
    .selectFrom('campaign_mailings as cm')
    .leftJoin('marketing_settings as ms', 'ms.customer_id', 'cm.customer_id')
    .select([
      'cm.subject',
      'cm.html_part',
      'cm.text_part',
      'cm.from_email',
      'cm.from_name',
      'ms.postal_address',
    ])
    .where('cm.id', '=', d.campaign_mailing_id)
    .executeTakeFirst()
    .then((r) => r && { kind: 'mailing' as const, ...r });
}

/** The list a delivery's email went to: its send's list, or its drip's list; null when there is none. */
export async function listOfDelivery(
  db: Queryable,
  d: Pick<DeliveryRow, 'send_id' | 'drip_enrollment_id'>,
): Promise<number | null> {
  if (d.send_id !== null) {
    const s = await db
      .selectFrom('campaign_mailing_sends')
      .select('subscription_list_id')
      .where('id', '=', d.send_id)
      .executeTakeFirst();
    return s?.subscription_list_id ?? null;
  }
  if (d.drip_enrollment_id === null) return null;
  const drip = await db
    .selectFrom('drip_enrollments as e')
    .innerJoin('drip_campaigns as c', 'c.id', 'e.drip_campaign_id')
    .select('c.subscription_list_id')
    .where('e.id', '=', d.drip_enrollment_id)
    .executeTakeFirst();
  return drip?.subscription_list_id ?? null;
}

// The gate reads these for every delivery of a send (see db/precompiled.ts).
const subscriberStateQuery = precompile((db, v: { subscriberId: number }) =>
  db.selectFrom('subscribers').select(['unsubscribed', 'email']).where('id', '=', v.subscriberId),
);
const memberStateQuery = precompile((db, v: { subscriberId: number; listId: number }) =>
  db
    .selectFrom('subscribers as s')
    .leftJoin('subscription_list_members as m', (j) =>
      j.onRef('m.subscriber_id', '=', 's.id').on('m.list_id', '=', v.listId),
    )
    .leftJoin('subscription_lists as l', 'l.id', 'm.list_id')
    .select([
      's.email as email',
      's.unsubscribed as globally',
      'm.unsubscribed as unsubscribed',
      'm.confirmed_at as confirmed_at',
      'l.double_opt_in as double_opt_in',
    ])
    .where('s.id', '=', v.subscriberId),
);

/**
 * Whether a subscriber may get mail of a list now: exists, has an email address (one known by phone only cannot be
 * mailed), is not globally unsubscribed and (with a list) is subscribed to it.
 */
export async function subscriberReachable(
  db: Queryable,
  subscriberId: number,
  listId: number | null,
): Promise<boolean> {
  if (listId === null) {
    const s = (await subscriberStateQuery(db, { subscriberId })).rows[0];
    return s !== undefined && s.email !== '' && s.unsubscribed !== 1;
  }
  const m = (await memberStateQuery(db, { subscriberId, listId })).rows[0];
  // A member of a double opt-in list receives nothing until it confirmed.
  return (
    m !== undefined &&
    m.email !== '' &&
    m.globally !== 1 &&
    m.unsubscribed === 0 &&
    (m.double_opt_in === 0 || m.confirmed_at !== null)
  );
}

/** Moves a delivery that is not final yet to a new status; returns whether it moved. */
export async function moveDelivery(
  db: Queryable,
  id: number,
  set: { status: string; delivery_status: string; last_response?: string | null },
  now: number,
): Promise<boolean> {
  const r = await db
    .updateTable('marketing_deliveries')
    .set({ ...set, updated_at: now })
    .where('id', '=', id)
    .where('status', 'not in', FINAL_STATUSES)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** The marketing delivery whose secure link token hashes to `tokenHash`. */
export async function findMarketingBySecureTokenHash(db: Queryable, tokenHash: string) {
  return db
    .selectFrom('marketing_deliveries')
    .select(['id', 'customer_id', 'secure_expires_at', 'created_at'])
    .where('secure_token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export async function setDeliverySecureLink(
  db: Queryable,
  id: number,
  tokenHash: string,
  expiresAt: number,
  now: number,
): Promise<void> {
  await db
    .updateTable('marketing_deliveries')
    .set({ secure_token_hash: tokenHash, secure_expires_at: expiresAt, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/** Subscriber counter columns. */
export type SubscriberStat =
  | 'stat_deliveries'
  | 'stat_delivered'
  | 'stat_opened'
  | 'stat_clicked'
  | 'stat_soft_bounced'
  | 'stat_hard_bounced'
  | 'stat_unsubscribed'
  | 'stat_global_unsubscribed';

/** Adds `by` (one unless given) to each named counter of a subscriber. */
export async function bumpSubscriber(
  db: Queryable,
  subscriberId: number,
  stats: SubscriberStat[],
  by = 1,
): Promise<void> {
  if (stats.length === 0) return;
  const set = Object.fromEntries(stats.map((col) => [col, sql`${sql.ref(col)} + ${by}`]));
  await db.updateTable('subscribers').set(set).where('id', '=', subscriberId).execute();
}

/** Counts an open; returns the delivery's open count after it (1 on the first). */
export async function countDeliveryOpen(db: Queryable, id: number, now: number): Promise<number | undefined> {
  const row = await db
    .updateTable('marketing_deliveries')
    .set((eb) => ({
      open_count: eb('open_count', '+', 1),
      first_opened_at: eb.fn.coalesce('first_opened_at', eb.val(now)),
      updated_at: now,
    }))
    .where('id', '=', id)
    .returning('open_count')
    .executeTakeFirst();
  return row?.open_count;
}

/** Counts a click of one link of a delivery: the delivery's, the link's per delivery, and the send link's totals. */
export async function countDeliveryClick(
  db: Queryable,
  d: Pick<DeliveryRow, 'id' | 'send_id'>,
  htmlId: number,
  targetUrl: string,
  now: number,
): Promise<number | undefined> {
  // One statement, so two first clicks at once (on two API nodes) cannot both try to insert.
  await db
    .insertInto('marketing_link_clicks')
    .values({
      delivery_id: d.id,
      send_id: d.send_id,
      html_id: htmlId,
      target_url: targetUrl,
      clicked: 1,
      first_clicked_at: now,
      created_at: now,
    })
    .onConflict((oc) =>
      oc
        .columns(['delivery_id', 'html_id'])
        .doUpdateSet((eb) => ({ clicked: eb('marketing_link_clicks.clicked', '+', 1) })),
    )
    .execute();
  if (d.send_id !== null)
    await db
      .updateTable('campaign_send_links')
      .set((eb) => ({ clicked: eb('clicked', '+', 1) }))
      .where('send_id', '=', d.send_id)
      .where('html_id', '=', htmlId)
      .execute();
  const row = await db
    .updateTable('marketing_deliveries')
    .set((eb) => ({ click_count: eb('click_count', '+', 1), updated_at: now }))
    .where('id', '=', d.id)
    .returning('click_count')
    .executeTakeFirst();
  return row?.click_count;
}

/** Marks a delivery's unsubscribe (list or global) once; returns whether this call marked it. */
export async function markDeliveryUnsubscribed(
  db: Queryable,
  id: number,
  global: boolean,
  now: number,
): Promise<boolean> {
  const col = global ? 'global_unsubscribed_at' : 'unsubscribed_at';
  const r = await db
    .updateTable('marketing_deliveries')
    .set({ [col]: now, updated_at: now })
    .where('id', '=', id)
    .where(col, 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Keeps the captured copy of a marketing delivery, replacing an earlier attempt's. */
export async function replaceMarketingCaptured(
  db: Queryable,
  row: {
    delivery_id: number;
    customer_id: number;
    envelope_from: string;
    envelope_to: string;
    raw: string;
    created_at: number;
  },
): Promise<void> {
  await db.deleteFrom('marketing_captured').where('delivery_id', '=', row.delivery_id).execute();
  await db.insertInto('marketing_captured').values(row).execute();
}

/** Captured copies of a send's emails, oldest first. */
export async function capturedOfSendRows(db: Queryable, customerId: number, sendId: number, limit: number) {
  return db
    .selectFrom('marketing_captured as c')
    .innerJoin('marketing_deliveries as d', 'd.id', 'c.delivery_id')
    .select(['c.delivery_id', 'c.envelope_from', 'c.envelope_to', 'c.raw', 'c.created_at'])
    .where('d.send_id', '=', sendId)
    .where('c.customer_id', '=', customerId)
    .orderBy('c.delivery_id')
    .limit(limit)
    .execute();
}

/** Purges the raw copies of captured marketing mail older than `before`; returns how many. */
export async function purgeMarketingCaptured(db: Queryable, before: number): Promise<number> {
  const r = await db
    .updateTable('marketing_captured')
    .set({ raw: null })
    .where('created_at', '<', before)
    .where('raw', 'is not', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/**
 * Applies a report that came back after delivery to a delivered delivery: a bounce fails it, a delay marks it
 * soft-bounced once. Returns false, changing nothing, when the delivery is not (or no longer) in that state.
 */
export async function reportOnDelivery(
  db: Queryable,
  id: number,
  change: 'fail' | 'delay',
  lastResponse: string,
  now: number,
): Promise<boolean> {
  let q = db
    .updateTable('marketing_deliveries')
    .set(
      change === 'fail'
        ? { status: 'failed', delivery_status: 'hard bounced', delivered_at: null }
        : { soft_bounced: 1, delivery_status: 'soft bounced' },
    )
    .set({ last_response: lastResponse, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'delivered');
  if (change === 'delay') q = q.where('soft_bounced', '=', 0);
  const r = await q.executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}
