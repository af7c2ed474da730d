/** SQL for drip campaigns and their enrollments: the rows, the state moves, the counters and the step guard. */
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { DripCampaignsTable, DripEnrollmentsTable, Queryable } from '../../db/types.ts';
import { keysByRef } from '../ids.repository.ts';

export type DripRow = Selectable<DripCampaignsTable>;
export type EnrollmentRow = Selectable<DripEnrollmentsTable>;

/** Sort keys of the drip list. */
export type DripOrder = 'created_at' | 'updated_at' | 'name' | 'state';

/** Enrollments moved per statement when a drip resumes. */
export const RESUME_BATCH = 500;

/** One drip of an account. */
export async function findDrip(db: Queryable, customerId: number, id: number): Promise<DripRow | undefined> {
  return db
    .selectFrom('drip_campaigns')
    .selectAll()
    .where('id', '=', id)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
}

/** One drip by id, whatever its account (for background work). */
export async function findDripById(db: Queryable, id: number): Promise<DripRow | undefined> {
  return db.selectFrom('drip_campaigns').selectAll().where('id', '=', id).executeTakeFirst();
}

/** An account's drips in the given order (an account holds few drips; the search runs over them in the service). */
export async function listDrips(
  db: Queryable,
  customerId: number,
  orderBy: DripOrder,
  direction: 'asc' | 'desc',
): Promise<DripRow[]> {
  return db
    .selectFrom('drip_campaigns')
    .selectAll()
    .where('customer_id', '=', customerId)
    .orderBy(orderBy, direction)
    .orderBy('id', direction)
    .execute();
}

/** Every active drip (enrollment looks at each). */
export async function activeDrips(db: Queryable): Promise<DripRow[]> {
  return db.selectFrom('drip_campaigns').selectAll().where('state', '=', 'active').orderBy('id').execute();
}

/** Inserts a drip; returns its id. */
export async function insertDrip(db: Queryable, row: Insertable<DripCampaignsTable>): Promise<number> {
  const r = await db.insertInto('drip_campaigns').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(r.id);
}

/** Changes a drip. */
export async function updateDrip(
  db: Queryable,
  id: number,
  patch: Updateable<DripCampaignsTable>,
): Promise<void> {
  await db.updateTable('drip_campaigns').set(patch).where('id', '=', id).execute();
}

/** Moves a drip from one of `from` to `to`; false when its state was none of them (a concurrent move won). */
export async function moveDripState(
  db: Queryable,
  id: number,
  from: string[],
  set: Updateable<DripCampaignsTable>,
): Promise<boolean> {
  const res = await db
    .updateTable('drip_campaigns')
    .set(set)
    .where('id', '=', id)
    .where('state', 'in', from)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Bumps a drip's enrolled and completed counters. */
export async function bumpDripCounters(
  db: Queryable,
  id: number,
  enrolled: number,
  completed: number,
): Promise<void> {
  await db
    .updateTable('drip_campaigns')
    .set((eb) => ({
      subscriber_count: eb('subscriber_count', '+', enrolled),
      subscriber_completed_count: eb('subscriber_completed_count', '+', completed),
    }))
    .where('id', '=', id)
    .execute();
}

/** Deletes a drip with its enrollments. */
export async function deleteDrip(db: Queryable, id: number): Promise<void> {
  await db.deleteFrom('drip_enrollments').where('drip_campaign_id', '=', id).execute();
  await db.deleteFrom('drip_campaigns').where('id', '=', id).execute();
}

/** Which of these mailing ids belong to the account. */
export async function accountMailingIds(
  db: Queryable,
  customerId: number,
  refs: string[],
): Promise<Map<string, number>> {
  return keysByRef(db, 'campaign_mailings', customerId, refs);
}

/** Enrolls subscribers at the start node, each at most once per drip; returns the ids of the enrollments created. */
export async function insertEnrollments(
  db: Queryable,
  drip: DripRow,
  startId: string,
  subscriberIds: number[],
  now: number,
): Promise<number[]> {
  if (subscriberIds.length === 0) return [];
  const rows = await db
    .insertInto('drip_enrollments')
    .values(
      subscriberIds.map((s) => ({
        drip_campaign_id: drip.id,
        customer_id: drip.customer_id,
        subscriber_id: s,
        node_id: startId,
        seq: 0,
        state: 'active',
        created_at: now,
        updated_at: now,
      })),
    )
    .onConflict((oc) => oc.columns(['drip_campaign_id', 'subscriber_id']).doNothing())
    .returning('id')
    .execute();
  return rows.map((r) => Number(r.id));
}

/** One enrollment, locked for the step's transaction on PostgreSQL. */
export async function lockEnrollment(
  db: Queryable,
  id: number,
  forUpdate: boolean,
): Promise<EnrollmentRow | undefined> {
  return db
    .selectFrom('drip_enrollments')
    .selectAll()
    .where('id', '=', id)
    .$if(forUpdate, (qb) => qb.forUpdate())
    .executeTakeFirst();
}

/** Moves an enrollment past step `seq`; false when another run already moved it (the caller rolls back). */
export async function moveEnrollment(
  db: Queryable,
  id: number,
  seq: number,
  set: Updateable<DripEnrollmentsTable>,
): Promise<boolean> {
  const res = await db
    .updateTable('drip_enrollments')
    .set({ ...set, seq: seq + 1 })
    .where('id', '=', id)
    .where('seq', '=', seq)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** The next batch of a drip's parked enrollments. */
export async function parkedEnrollments(
  db: Queryable,
  dripId: number,
  limit: number,
): Promise<EnrollmentRow[]> {
  return db
    .selectFrom('drip_enrollments')
    .selectAll()
    .where('drip_campaign_id', '=', dripId)
    .where('state', '=', 'parked')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Marks enrollments that wait or are parked on a node the graph no longer has as stopped; returns how many. */
export async function stopEnrollmentsOffGraph(
  db: Queryable,
  dripId: number,
  nodeIds: string[],
  now: number,
): Promise<number> {
  let q = db
    .updateTable('drip_enrollments')
    .set({ state: 'stopped', stop_reason: 'node_removed', finished_at: now, updated_at: now })
    .where('drip_campaign_id', '=', dripId)
    .where('state', 'in', ['active', 'parked']);
  if (nodeIds.length > 0) q = q.where('node_id', 'not in', nodeIds);
  const res = await q.executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/** A subscriber's email by id, or undefined. */
export async function subscriberEmail(db: Queryable, subscriberId: number): Promise<string | undefined> {
  const s = await db
    .selectFrom('subscribers')
    .select('email')
    .where('id', '=', subscriberId)
    .executeTakeFirst();
  return s?.email;
}

/** Subscribed members of a list who joined (or, on a list asking for it, confirmed) at or after `from` and are not enrolled in the drip yet. */
export async function newMembers(
  db: Queryable,
  drip: DripRow,
  listId: number,
  from: number,
  limit: number,
): Promise<number[]> {
  const rows = await db
    .selectFrom('subscription_list_members as m')
    .innerJoin('subscribers as s', 's.id', 'm.subscriber_id')
    .innerJoin('subscription_lists as l', 'l.id', 'm.list_id')
    .select('m.subscriber_id')
    .where('m.list_id', '=', listId)
    // A list that asks for confirmation enrolls a member when they confirm, not when they sign up.
    .where((eb) =>
      eb.or([
        eb.and([eb('l.double_opt_in', '=', 0), eb('m.created_at', '>=', from)]),
        eb('m.confirmed_at', '>=', from),
      ]),
    )
    .where('m.unsubscribed', '=', 0)
    .where('s.unsubscribed', '=', 0)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('drip_enrollments as e')
            .select('e.id')
            .where('e.drip_campaign_id', '=', drip.id)
            .whereRef('e.subscriber_id', '=', 'm.subscriber_id'),
        ),
      ),
    )
    .orderBy('m.created_at')
    .orderBy('m.subscriber_id')
    .limit(limit)
    .execute();
  return rows.map((r) => Number(r.subscriber_id));
}

/** A page of a form's submissions stored at or after `from`, after the (created_at, id) cursor, oldest first. */
export async function submissionsSince(
  db: Queryable,
  formId: string,
  from: number,
  after: { at: number; id: string } | null,
  limit: number,
) {
  let q = db
    .selectFrom('form_submissions')
    .selectAll()
    .where('form_id', '=', formId)
    .where('created_at', '>=', from);
  if (after)
    q = q.where((eb) =>
      eb.or([
        eb('created_at', '>', after.at),
        eb.and([eb('created_at', '=', after.at), eb('id', '>', after.id)]),
      ]),
    );
  return q.orderBy('created_at').orderBy('id').limit(limit).execute();
}
