/** Form definitions: create, read, list, change, archive, delete, copy, statistics and the public read. */
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/types.ts';
import { AppError } from '../../errors/app-error.ts';
import { parseMailbox } from '../../mail/addresses.ts';
import { parseDefinition } from './definition.ts';
import { renderFragment } from '../components/fragment.html.ts';
import {
  findForm,
  findFormByVanity,
  findPublicForm,
  formStats,
  insertForm,
  listForms,
  updateForm,
  type FormListQuery,
  type FormRow,
} from './forms.repository.ts';
import type {
  CopyBody,
  CreateBody,
  Form,
  ListQuery,
  PublicForm,
  Stats,
  UpdateBody,
} from './forms.schemas.ts';

/** The stored form row, the shape the other form rooms work with. */
export type { FormRow };

const DAY_MS = 86_400_000;
const ORDER_BY = new Set(['created_at', 'title', 'updated_at', 'submission_count']);

/** A form row as the API returns it. */
export function formView(row: FormRow): Form {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    form_json: JSON.parse(row.form_json) as unknown,
    form_html: row.form_html,
    form_css: row.form_css,
    vanity_url: row.vanity_url,
    version: row.version,
    active: row.active === 1,
    customer_id: row.customer_id,
    number: Number(row.number),
    old_form_id: row.old_form_number === null ? null : Number(row.old_form_number),
    recipient: row.recipient,
    signable: row.signable === 1,
    signature_confirmation_label: row.signature_confirmation_label,
    submission_count: row.submission_count,
    type: row.type,
    subscription_list_id: row.subscription_list_id,
    deleted: row.deleted === 1,
    archived: row.archived === 1,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

/** Refuses a customer_id other than the key's own. */
function ownCustomer(customerId: number, asked: number | undefined): number {
  if (asked !== undefined && asked !== customerId)
    throw new AppError('auth.forbidden', `this API key has no access to customer ${asked}`);
  return customerId;
}

/** Checks a comma-separated recipient list; returns it normalized (", " between addresses). */
function recipients(text: string): string {
  const parts = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = parts.findIndex((p) => !parseMailbox(p));
  if (bad >= 0)
    throw new AppError('form.invalid_definition', `recipient entry ${bad + 1} is not a valid email address`);
  return parts.join(', ');
}

/** Checks that a list is one of the account's own, throwing when not. Marketing owns lists; app/ hands the check in. */
export type ListCheck = (db: Queryable, customerId: number, listId: string) => Promise<unknown>;

/** Creates a form; returns its id. */
export async function createForm(
  ctx: AppContext,
  customerId: number,
  body: CreateBody,
  lists: ListCheck,
): Promise<{ id: string }> {
  ownCustomer(customerId, body.customer_id);
  const def = parseDefinition(body.form_json);
  const now = Date.now();
  const id = randomUUID();
  await insertForm(ctx.database.db, ctx.database.dialect, {
    id,
    customer_id: customerId,
    title: body.title,
    description: body.description ?? null,
    form_json: JSON.stringify(def.json),
    form_html: body.form_html ?? renderFragment(def.components).value,
    form_css: body.form_css ?? '',
    vanity_url: body.vanity_url ?? null,
    version: body.version ?? 1,
    active: body.active === false ? 0 : 1,
    old_form_id: null,
    old_form_number: null,
    recipient: recipients(body.recipient ?? ''),
    signable: body.signable ? 1 : 0,
    signature_confirmation_label: body.signature_confirmation_label ?? null,
    submission_count: 0,
    type: body.type ?? null,
    subscription_list_id: await ownListId(ctx, customerId, body.subscription_list_id, lists),
    deleted: 0,
    archived: 0,
    created_at: now,
    updated_at: now,
  });
  return { id };
}

/** A subscription list id the form may name: one of the account's own lists (another account's is not found), or none. */
async function ownListId(
  ctx: AppContext,
  customerId: number,
  listId: string | null | undefined,
  lists: ListCheck,
): Promise<string | null> {
  if (listId === undefined || listId === null || listId === '') return null;
  await lists(ctx.database.reader, customerId, listId);
  return listId;
}

/** One form of the account, or form.not_found. */
export async function formOf(ctx: AppContext, customerId: number, id: string): Promise<Form> {
  return formView(await requireForm(ctx, customerId, id));
}

/** `GET /api/forms/<id>`: the form inside `data`, as clients read it. */
export async function formEnvelopeOf(
  ctx: AppContext,
  customerId: number,
  id: string,
): Promise<{ data: Form }> {
  return { data: await formOf(ctx, customerId, id) };
}

/** The stored row of one of the account's forms, read through `db` (a caller's transaction), or undefined. */
export async function findFormOf(
  db: Queryable,
  customerId: number,
  id: string,
): Promise<FormRow | undefined> {
  return findForm(db, customerId, id);
}

/** The stored row of one of the account's forms, or form.not_found. */
export async function requireForm(ctx: AppContext, customerId: number, id: string): Promise<FormRow> {
  const row = await findForm(ctx.database.reader, customerId, id);
  if (!row) throw new AppError('form.not_found', `form ${id} was not found`);
  return row;
}

/** Lists the account's forms with filters, order and pages. */
export async function listFormsOf(ctx: AppContext, customerId: number, q: ListQuery) {
  const items = q.items ?? 50;
  const page = q.page ?? 1;
  const query: FormListQuery = {
    customerId: ownCustomer(customerId, q.customer_id),
    formId: q.form_id,
    search: q.search,
    archived: q.archived,
    active: q.active,
    orderBy: (q.order_by && ORDER_BY.has(q.order_by) ? q.order_by : 'created_at') as FormListQuery['orderBy'],
    order: q.order?.toLowerCase() === 'asc' ? 'asc' : 'desc',
    limit: items,
    offset: (page - 1) * items,
  };
  const { rows, count } = await listForms(ctx.database.reader, query);
  return { results: rows.map(formView), page_info: { count, pages: Math.ceil(count / items), page, items } };
}

/** Changes the given fields. A new form_json without a version bumps the version by one. */
export async function changeForm(
  ctx: AppContext,
  customerId: number,
  id: string,
  body: UpdateBody,
  lists: ListCheck,
): Promise<{ detail: string; form_id: string }> {
  ownCustomer(customerId, body.customer_id);
  const row = await requireForm(ctx, customerId, id);
  const def = body.form_json !== undefined ? parseDefinition(body.form_json) : undefined;
  const set = {
    ...(body.title !== undefined && { title: body.title }),
    ...(body.description !== undefined && { description: body.description }),
    ...(def && { form_json: JSON.stringify(def.json) }),
    ...((body.form_html !== undefined || def) && {
      form_html: body.form_html ?? renderFragment(def!.components).value,
    }),
    ...(body.form_css !== undefined && { form_css: body.form_css }),
    ...(body.recipient !== undefined && { recipient: recipients(body.recipient) }),
    ...(body.subscription_list_id !== undefined && {
      subscription_list_id: await ownListId(ctx, customerId, body.subscription_list_id, lists),
    }),
    ...(body.type !== undefined && { type: body.type }),
    ...(body.active !== undefined && { active: body.active ? 1 : 0 }),
    ...(body.signable !== undefined && { signable: body.signable ? 1 : 0 }),
    ...(body.signature_confirmation_label !== undefined && {
      signature_confirmation_label: body.signature_confirmation_label,
    }),
    ...(body.vanity_url !== undefined && { vanity_url: body.vanity_url }),
    version: body.version ?? (def ? row.version + 1 : row.version),
    updated_at: Date.now(),
  };
  await updateForm(ctx.database.db, customerId, id, set);
  return { detail: 'Form updated', form_id: id };
}

/** Archives a form (which also makes it inactive). */
export async function archiveForm(
  ctx: AppContext,
  customerId: number,
  id: string,
): Promise<{ detail: string }> {
  await requireForm(ctx, customerId, id);
  await updateForm(ctx.database.db, customerId, id, { archived: 1, active: 0, updated_at: Date.now() });
  return { detail: 'Form archived' };
}

/** Unarchives a form; it stays inactive until activated with PUT. */
export async function unarchiveForm(
  ctx: AppContext,
  customerId: number,
  id: string,
): Promise<{ detail: string }> {
  await requireForm(ctx, customerId, id);
  await updateForm(ctx.database.db, customerId, id, { archived: 0, updated_at: Date.now() });
  return { detail: 'Form unarchived' };
}

/** Marks a form deleted: it leaves lists, statistics and public reads; its submissions stay until the account is removed. */
export async function deleteForm(
  ctx: AppContext,
  customerId: number,
  id: string,
): Promise<{ detail: string }> {
  await requireForm(ctx, customerId, id);
  await updateForm(ctx.database.db, customerId, id, { deleted: 1, active: 0, updated_at: Date.now() });
  return { detail: 'Form deleted' };
}

/** Copies a form under a new title: no submissions, no vanity URL, `old_form_id` the source's integer number. */
export async function copyForm(ctx: AppContext, customerId: number, body: CopyBody): Promise<Form> {
  const src = await requireForm(ctx, customerId, body.form_id);
  const now = Date.now();
  const id = randomUUID();
  const { number, ...copied } = src;
  await insertForm(ctx.database.db, ctx.database.dialect, {
    ...copied,
    id,
    title: body.title,
    vanity_url: null,
    old_form_id: src.id,
    old_form_number: Number(number),
    submission_count: 0,
    archived: 0,
    created_at: now,
    updated_at: now,
  });
  return formOf(ctx, customerId, id);
}

/** Active forms, all submissions, and submissions of the last 7 days (today and the 6 days before, UTC). */
export async function statsOf(
  ctx: AppContext,
  customerId: number,
  asked: number | undefined,
): Promise<Stats> {
  const s = await formStats(
    ctx.database.reader,
    ownCustomer(customerId, asked),
    Math.floor(Date.now() / DAY_MS) - 6,
  );
  return { active_form_count: s.active, total_submission_count: s.total, submissions_last_7_days: s.recent };
}

/** A form that accepts responses (exists, not deleted, active, not archived), or form.not_found. */
export async function openForm(ctx: AppContext, id: string): Promise<FormRow> {
  const row = await findPublicForm(ctx.database.reader, id);
  if (!row || row.active !== 1 || row.archived === 1)
    throw new AppError('form.not_found', `form ${id} was not found`);
  return row;
}

/** A form by id alone, not deleted, whatever its other flags (the work that follows a stored submission). */
export async function findUndeletedForm(ctx: AppContext, id: string): Promise<FormRow | undefined> {
  return findPublicForm(ctx.database.reader, id);
}

/** The open form served at a vanity name (its `vanity_url` exactly), or null. */
export async function formByVanity(ctx: AppContext, vanity: string): Promise<FormRow | null> {
  const name = vanity.trim();
  if (!name || name.length > 200) return null;
  return (await findFormByVanity(ctx.database.reader, name)) ?? null;
}

/** The public read: the public subset of an open form. */
export async function publicFormOf(ctx: AppContext, id: string): Promise<PublicForm> {
  const f = formView(await openForm(ctx, id));
  return {
    id: f.id,
    title: f.title,
    description: f.description,
    form_json: f.form_json,
    form_html: f.form_html,
    form_css: f.form_css,
    active: f.active,
    customer_id: f.customer_id,
    signable: f.signable,
    submission_count: f.submission_count,
    created_at: f.created_at,
    updated_at: f.updated_at,
  };
}
