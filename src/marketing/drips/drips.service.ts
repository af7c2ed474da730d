/**
 * Drip campaigns of an account: listing, creating, changing, deleting, and the state moves draft → active ⇄ paused.
 * The graph rules live in drips.graph.ts; what runs the steps lives in drips.engine.ts.
 */
import type { Static } from '@sinclair/typebox';
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/types.ts';
import { AppError } from '../../errors/app-error.ts';
import { enqueueJob } from '../../jobs/jobs.repository.ts';
import { findFormOf } from '../../forms/definitions/forms.service.ts';
import { existingKeys, resolveId } from '../ids.repository.ts';
import { ensureDefaultList, requireList } from '../lists/lists.service.ts';
import {
  invalid,
  mailingIds,
  parseGraph,
  treeBlob,
  triggerOf,
  type DripGraph,
  type StartTrigger,
} from './drips.graph.ts';
import {
  accountMailingIds,
  deleteDrip,
  findDrip,
  insertDrip,
  listDrips,
  moveDripState,
  stopEnrollmentsOffGraph,
  updateDrip,
  type DripOrder,
  type DripRow,
} from './drips.repository.ts';
import { DRIP_RESUME_QUEUE, type DripResumeJob } from './drips.engine.ts';
import type { DripFull, DripShort } from './drips.schemas.ts';
import { matchSubjects, searchPattern } from '../mailings/mailing-input.ts';

/** A drip as the list shows it. */
export type DripView = Static<typeof DripShort>;
/** A drip with its graph fields. */
export type DripFullView = Static<typeof DripFull>;

/** The fields of a create or update body. */
export interface DripInput {
  name?: string;
  subscription_list_id?: string | number | null;
  start_trigger?: string | null;
  drip_campaign_nodes?: string | null;
}

/** `GET /drip_campaigns` query. */
export interface DripListQuery {
  search?: string;
  order_by: DripOrder;
  order: 'asc' | 'desc';
  page: number;
  items: number;
}

const EMPTY_GRAPH = '{"nodes":[],"edges":[]}';

/** One page of the account's drips, filtered by a case-insensitive regular expression against the name. */
export async function dripsOf(ctx: AppContext, customerId: number, q: DripListQuery): Promise<DripView[]> {
  const pattern = q.search === undefined || q.search === '' ? null : searchPattern(q.search);
  const rows = await listDrips(ctx.database.reader, customerId, q.order_by, q.order);
  const hits = pattern
    ? matchSubjects(
        pattern,
        rows.map((r) => r.name),
      )
    : null;
  const matching = hits ? rows.filter((_, i) => hits[i]) : rows;
  const page = matching.slice((q.page - 1) * q.items, q.page * q.items);
  const lists = await existingKeys(
    ctx.database.reader,
    'subscription_lists',
    page.map((r) => r.subscription_list_id),
  );
  return page.map((r) => dripView(r, lists));
}

/** One drip with its graph fields. */
export async function dripOf(
  ctx: AppContext,
  customerId: number,
  rawId: string | number,
): Promise<DripFullView> {
  return dripFullView(ctx.database.reader, await requireDrip(ctx.database.reader, customerId, rawId));
}

/** Creates a drip in the draft state. */
export async function createDrip(
  ctx: AppContext,
  customerId: number,
  input: DripInput,
): Promise<DripFullView> {
  const db = ctx.database.db;
  const now = Date.now();
  const name = checkName(input.name);
  const nodes = blank(input.drip_campaign_nodes) ? EMPTY_GRAPH : input.drip_campaign_nodes!;
  const settled = await settle(ctx, customerId, nodes, input.start_trigger, input.subscription_list_id, null);
  const id = await insertDrip(db, {
    customer_id: customerId,
    name,
    ...settled.columns,
    state: 'draft',
    created_at: now,
    updated_at: now,
  });
  return dripFullView(db, (await findDrip(db, customerId, id))!);
}

/**
 * Changes a drip. The graph, list and trigger of an active drip are fixed (pause it first); when a paused drip's graph
 * loses nodes, the enrollments waiting on them stop.
 */
export async function changeDrip(
  ctx: AppContext,
  customerId: number,
  rawId: string | number,
  input: DripInput,
): Promise<DripFullView> {
  const db = ctx.database.db;
  const row = await requireDrip(db, customerId, rawId);
  const name = input.name === undefined ? row.name : checkName(input.name);
  const changesRunning =
    !blank(input.drip_campaign_nodes) || !blank(input.start_trigger) || !blank(input.subscription_list_id);
  if (changesRunning && row.state === 'active')
    throw new AppError(
      'marketing.drip_state',
      'an active drip campaign cannot change its graph, list or trigger; pause it first',
    );
  const now = Date.now();
  if (!changesRunning) {
    await updateDrip(db, row.id, { name, updated_at: now });
    return dripFullView(db, (await findDrip(db, customerId, row.id))!);
  }
  const nodes = blank(input.drip_campaign_nodes) ? row.nodes : input.drip_campaign_nodes!;
  const settled = await settle(ctx, customerId, nodes, input.start_trigger, input.subscription_list_id, row);
  await db.transaction().execute(async (trx) => {
    // Conditional on the state, so that a start between the check above and this write cannot leave an active drip edited.
    if (
      !(await moveDripState(trx, row.id, ['draft', 'paused'], { name, ...settled.columns, updated_at: now }))
    )
      throw new AppError('marketing.drip_state', 'the drip campaign was started meanwhile; pause it first');
    if (row.state !== 'draft')
      await stopEnrollmentsOffGraph(trx, row.id, [...settled.graph.nodes.keys()], now);
  });
  return dripFullView(db, (await findDrip(db, customerId, row.id))!);
}

/** Starts a draft or paused drip; parked enrollments resume through one work row, whose id is answered. */
export async function startDrip(
  ctx: AppContext,
  customerId: number,
  rawId: string | number,
): Promise<{ jids: string[] }> {
  const db = ctx.database.db;
  const row = await requireDrip(db, customerId, rawId);
  if (row.state === 'active')
    throw new AppError('marketing.drip_state', 'the drip campaign is already active');
  if (parseGraph(row.nodes).startId === null)
    invalid('the drip campaign has no graph yet; give it drip_campaign_nodes before starting it');
  if (row.subscription_list_id === null)
    invalid('the subscription list of the drip campaign was deleted; give it another list');
  const now = Date.now();
  const jid = await db.transaction().execute(async (trx) => {
    const moved = await moveDripState(trx, row.id, ['draft', 'paused'], {
      state: 'active',
      started_at: row.started_at ?? now,
      start_count: row.start_count + 1,
      updated_at: now,
    });
    if (!moved) throw new AppError('marketing.drip_state', 'the drip campaign is already active');
    return enqueueJob(
      trx,
      {
        queue: DRIP_RESUME_QUEUE,
        payload: { dripId: row.id } satisfies DripResumeJob,
        uniqueKey: `drip-resume:${row.id}:${row.start_count + 1}`,
      },
      now,
    );
  });
  ctx.wake(DRIP_RESUME_QUEUE);
  return { jids: jid === null ? [] : [String(jid)] };
}

/** Pauses an active drip: steps that come due park their enrollment until the next start. */
export async function pauseDrip(
  ctx: AppContext,
  customerId: number,
  rawId: string | number,
): Promise<{ drip_campaign_id: string; status: string }> {
  const db = ctx.database.db;
  const row = await requireDrip(db, customerId, rawId);
  const moved = await moveDripState(db, row.id, ['active'], { state: 'paused', updated_at: Date.now() });
  if (!moved)
    throw new AppError(
      'marketing.drip_state',
      `a ${row.state} drip campaign cannot be paused; only an active one can`,
    );
  return { drip_campaign_id: row.uuid, status: 'paused' };
}

/** Deletes a drip that is not active, with its enrollments (their deliveries stay in the mailing's analytics). */
export async function removeDrip(
  ctx: AppContext,
  customerId: number,
  rawId: string | number,
): Promise<Record<string, never>> {
  const db = ctx.database.db;
  const row = await requireDrip(db, customerId, rawId);
  if (row.state === 'active')
    throw new AppError('marketing.drip_state', 'an active drip campaign cannot be deleted; pause it first');
  await db.transaction().execute((trx) => deleteDrip(trx, row.id));
  return {};
}

/** A drip of the account by an id as sent; another account's drip or a malformed id is not found. */
export async function requireDrip(
  db: Queryable,
  customerId: number,
  rawId: string | number,
): Promise<DripRow> {
  const id = await resolveId(db, 'drip_campaigns', customerId, rawId);
  const row = id === null ? undefined : await findDrip(db, customerId, id);
  if (!row) throw new AppError('marketing.drip_not_found', `drip campaign ${String(rawId)} was not found`);
  return row;
}

/** A drip as the list shows it. */
export function dripView(r: DripRow, lists: Set<number>): DripView {
  return {
    id: r.uuid,
    type: 'drip_campaign',
    attributes: {
      name: r.name,
      subscription_list_id:
        r.subscription_list_id !== null && lists.has(Number(r.subscription_list_id))
          ? Number(r.subscription_list_id)
          : null,
      subscription_list_name: r.subscription_list_name,
      state: r.state,
      created_at: new Date(Number(r.created_at)).toISOString(),
      updated_at: new Date(Number(r.updated_at)).toISOString(),
      start_trigger: r.start_trigger,
      subscriber_count: Number(r.subscriber_count),
      subscriber_completed_count: Number(r.subscriber_completed_count),
    },
  };
}

/** A drip with its graph fields. */
export async function dripFullView(db: Queryable, r: DripRow): Promise<DripFullView> {
  const short = dripView(r, await existingKeys(db, 'subscription_lists', [r.subscription_list_id]));
  return {
    ...short,
    attributes: { ...short.attributes, drip_campaign_nodes: r.nodes, drip_campaign_tree_blob: r.tree_blob },
  };
}

/** Checks the graph, the trigger and the list together and returns the columns they give. */
async function settle(
  ctx: AppContext,
  customerId: number,
  nodes: string,
  rawTrigger: string | null | undefined,
  rawListId: string | number | null | undefined,
  current: DripRow | null,
) {
  const db = ctx.database.db;
  const graph = parseGraph(nodes);
  await checkMailings(db, customerId, graph);
  const trigger = resolveTrigger(graph, rawTrigger, current);
  const start = graph.startId === null ? undefined : graph.nodes.get(graph.startId);
  const formId = trigger === 'form_submission' && start?.type === 'start' ? (start.form_id ?? null) : null;
  if (trigger === 'form_submission' && formId === null)
    invalid('a form_submission drip needs "form_id" on its start node', graph.startId ?? undefined);
  let listId = blank(rawListId) ? (current?.subscription_list_id ?? null) : rawListId!;
  if (formId !== null) {
    const form = await findFormOf(db, customerId, formId);
    if (!form || form.deleted === 1) invalid(`form ${formId} is not a form of the account`, graph.startId!);
    if (form.type !== 'marketing_form' || !form.subscription_list_id)
      invalid(
        `form ${formId} does not feed a subscription list (a marketing_form with subscription_list_id)`,
        graph.startId!,
      );
    if (
      !blank(rawListId) &&
      (await resolveId(db, 'subscription_lists', customerId, rawListId)) !==
        (await resolveId(db, 'subscription_lists', customerId, form.subscription_list_id))
    )
      invalid(
        `subscription_list_id must be the list form ${formId} feeds (${form.subscription_list_id})`,
        graph.startId!,
      );
    listId = form.subscription_list_id;
  }
  const list =
    listId === null ? await ensureDefaultList(db, customerId) : await requireList(db, customerId, listId);
  return {
    graph,
    columns: {
      subscription_list_id: list.id,
      subscription_list_name: list.name,
      start_trigger: trigger,
      form_id: formId,
      nodes: JSON.stringify(JSON.parse(nodes)),
      tree_blob: treeBlob(graph),
    },
  };
}

/** The trigger: the start node's, else the start_trigger field's, else the drip's current one, else `subscription`; node and field must agree. */
function resolveTrigger(
  graph: DripGraph,
  raw: string | null | undefined,
  current: DripRow | null,
): StartTrigger {
  const fromField = blank(raw) ? undefined : triggerOf(raw!);
  if (!blank(raw) && !fromField)
    invalid(`start_trigger ${JSON.stringify(raw)} is not "subscription" or "form_submission"`);
  const start = graph.startId === null ? undefined : graph.nodes.get(graph.startId);
  const fromNode = start?.type === 'start' ? start.trigger : undefined;
  if (fromNode && fromField && fromNode !== fromField)
    invalid(
      `start_trigger "${fromField}" does not match the start node's trigger "${fromNode}"`,
      graph.startId!,
    );
  return fromNode ?? fromField ?? (current ? triggerOf(current.start_trigger) : undefined) ?? 'subscription';
}

async function checkMailings(db: Queryable, customerId: number, graph: DripGraph): Promise<void> {
  const wanted = mailingIds(graph);
  const known = await accountMailingIds(db, customerId, wanted);
  for (const n of graph.nodes.values())
    if (n.type === 'email' && !known.has(n.campaign_mailing_id))
      invalid(`campaign mailing ${n.campaign_mailing_id} is not a mailing of the account`, n.id);
}

function checkName(name: string | undefined): string {
  const clean = (name ?? '').trim();
  const problem = !clean ? 'must not be blank' : clean.length > 255 ? 'must be at most 255 characters' : null;
  if (problem)
    throw new AppError('request.invalid', `name ${problem}`, {
      details: [{ field: 'name', message: problem }],
    });
  return clean;
}

function blank(v: unknown): boolean {
  return v === undefined || v === null || v === '';
}
