/**
 * Campaign mailings of an account: the content a campaign sends (subject, HTML and text parts, sender), listed with
 * the counters its sends maintain. Subjects are unique per account (letter case and surrounding spaces ignored). A
 * mailing with a send in progress cannot be deleted.
 */
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/types.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { AppError } from '../../errors/app-error.ts';
import { resolveId, resolveIds } from '../ids.repository.ts';
import {
  cleanMailingInput,
  matchSubjects,
  searchPattern,
  subjectKeyOf,
  type MailingFields,
  type MailingInput,
} from './mailing-input.ts';
import {
  busyMailingIds,
  deleteIdleMailings,
  findBySubjectKey,
  findMailing,
  insertMailing,
  listMailings,
  updateMailing,
  type MailingListRow,
  type MailingOrder,
  type MailingRow,
} from './mailings.repository.ts';
import { counterView, type CampaignCounterView } from '../counters.ts';
import { documentOf, expandBlocks } from '../../mail/blocks/blocks.service.ts';
import type { BlockDocument } from '../../mail/blocks/blocks.schemas.ts';

/** Locks a mailing's row for the caller's transaction (the console's one send per mailing). */
export { lockMailingRow } from './mailings.repository.ts';

/** `GET /campaign_mailings` query. */
export interface MailingsQuery {
  search?: string;
  template_type?: string;
  order_by: MailingOrder;
  order: 'asc' | 'desc';
  items: number;
  page: number;
  pagination: boolean;
}

/** Attributes of every mailing answer. */
export interface MailingAttributes extends CampaignCounterView {
  subject: string;
  template_type: string;
  created_at: string;
  updated_at: string;
}

/** A mailing in the list. */
export interface MailingItem {
  id: number;
  uuid: string;
  type: 'campaign_mailing';
  attributes: MailingAttributes;
}

/** One mailing with its content and sender. */
export interface MailingFull {
  id: number;
  uuid: string;
  type: 'campaign_mailing';
  attributes: MailingAttributes & {
    html_part: string | null;
    text_part: string | null;
    from_email: string | null;
    from_name: string | null;
    content_blocks: BlockDocument | null;
  };
}

/** A mailing of the account by an id as sent; otherwise not found. */
export async function requireMailing(
  db: Queryable,
  customerId: number,
  rawId: string | number,
): Promise<MailingRow> {
  const id = await resolveId(db, 'campaign_mailings', customerId, rawId);
  const row = id === null ? undefined : await findMailing(db, customerId, id);
  if (!row)
    throw new AppError('marketing.mailing_not_found', `campaign mailing ${String(rawId)} was not found`);
  return row;
}

/** The account's mailing with this subject (letter case and spacing as the subject key folds them), or undefined. */
export async function mailingBySubject(
  db: Queryable,
  customerId: number,
  subject: string,
): Promise<MailingRow | undefined> {
  const found = await findBySubjectKey(db, customerId, subjectKeyOf(subject));
  return found && (await findMailing(db, customerId, found.id));
}

/** A page of the account's mailings (all of them with `pagination=false`), filtered by subject search and editor. */
export async function mailingsOf(
  ctx: AppContext,
  customerId: number,
  q: MailingsQuery,
): Promise<MailingItem[]> {
  const pattern = q.search === undefined ? null : searchPattern(q.search);
  const limit = q.pagination ? q.items : null;
  const offset = (q.page - 1) * q.items;
  const base = {
    templateType: q.template_type?.trim().toLowerCase(),
    orderBy: q.order_by,
    direction: q.order,
  };
  const db = ctx.database.reader;
  if (!pattern) return (await listMailings(db, customerId, { ...base, limit, offset })).map(itemView);
  // A regular expression cannot be given to both SQL engines alike: filter the ordered rows here, then page.
  const rows = await listMailings(db, customerId, { ...base, limit: null, offset: 0 });
  const matches = matchSubjects(
    pattern,
    rows.map((r) => r.subject),
  );
  const found = rows.filter((_, i) => matches[i]);
  return (limit === null ? found : found.slice(offset, offset + limit)).map(itemView);
}

/** One mailing with its content. */
export async function mailingOf(
  ctx: AppContext,
  customerId: number,
  rawId: string | number,
): Promise<MailingFull> {
  return fullView(await requireMailing(ctx.database.reader, customerId, rawId));
}

/** Creates a mailing. */
export async function createMailing(
  ctx: AppContext,
  customerId: number,
  input: MailingInput,
): Promise<MailingFull> {
  const fields = await cleanWithBlocks(input);
  if (fields.subject === undefined || fields.subject_key === undefined)
    throw new AppError('marketing.mailing_invalid', 'campaign_mailing.subject is required', {
      details: [{ field: 'campaign_mailing.subject', message: 'is required' }],
    });
  requireContent(fields.html_part ?? null, fields.text_part ?? null);
  const db = ctx.database.db;
  await refuseTaken(db, customerId, fields.subject_key);
  const now = Date.now();
  const id = await uniquely(db, customerId, fields.subject_key, () =>
    insertMailing(db, {
      customer_id: customerId,
      subject: fields.subject!,
      subject_key: fields.subject_key!,
      html_part: fields.html_part ?? null,
      text_part: fields.text_part ?? null,
      template_type: fields.template_type ?? (fields.content_blocks ? 'blocks' : 'html'),
      content_blocks: fields.content_blocks ?? null,
      from_email: fields.from_email ?? null,
      from_name: fields.from_name || null,
      created_at: now,
      updated_at: now,
    }),
  );
  return fullView((await findMailing(db, customerId, id))!);
}

/** Changes the fields sent; the others stay. */
export async function changeMailing(
  ctx: AppContext,
  customerId: number,
  rawId: string | number,
  input: MailingInput,
): Promise<MailingFull> {
  const db = ctx.database.db;
  const row = await requireMailing(db, customerId, rawId);
  const fields: MailingFields = await cleanWithBlocks(input);
  if (fields.content_blocks && input.template_type === undefined) fields.template_type = 'blocks';
  else if (
    fields.content_blocks === null &&
    input.template_type === undefined &&
    row.template_type === 'blocks'
  )
    fields.template_type = 'html';
  requireContent(fields.html_part ?? row.html_part, fields.text_part ?? row.text_part);
  if (fields.subject_key !== undefined && fields.subject_key !== row.subject_key)
    await refuseTaken(db, customerId, fields.subject_key);
  await uniquely(db, customerId, fields.subject_key, () =>
    updateMailing(db, row.id, {
      ...fields,
      ...(fields.from_name !== undefined && { from_name: fields.from_name || null }),
      updated_at: Date.now(),
    }),
  );
  return fullView((await findMailing(db, customerId, row.id))!);
}

/**
 * A copy of a mailing, never sent, under the first free subject of `<subject> (copy)`, `(copy 2)`, … (subjects are
 * unique per account).
 */
export async function duplicateMailing(
  ctx: AppContext,
  customerId: number,
  rawId: string | number,
): Promise<MailingFull> {
  const db = ctx.database.db;
  const row = await requireMailing(db, customerId, rawId);
  for (let n = 1; n <= 100; n++) {
    const subject = `${row.subject} (copy${n > 1 ? ` ${n}` : ''})`;
    if (await findBySubjectKey(db, customerId, subjectKeyOf(subject))) continue;
    return createMailing(ctx, customerId, {
      subject,
      ...(row.content_blocks ? {} : { html_part: row.html_part ?? undefined }),
      text_part: row.text_part ?? undefined,
      template_type: row.template_type,
      ...(row.content_blocks ? { content_blocks: documentOf(row.content_blocks) } : {}),
      from_email: row.from_email ?? undefined,
      from_name: row.from_name ?? undefined,
    });
  }
  throw new AppError('marketing.subject_taken', 'a hundred copies of this mailing exist; rename one first');
}

/** Deletes one mailing with its sends and deliveries. */
export async function removeMailing(
  ctx: AppContext,
  customerId: number,
  rawId: string | number,
): Promise<Record<string, never>> {
  const row = await requireMailing(ctx.database.db, customerId, rawId);
  await deleteMailings(ctx, customerId, [row.id]);
  return {};
}

/** Deletes the account's mailings among these ids (ids of other accounts and malformed ids are ignored). */
export async function bulkRemoveMailings(
  ctx: AppContext,
  customerId: number,
  rawIds: string | (string | number)[] | undefined,
): Promise<Record<string, never>> {
  const list = rawIds === undefined ? [] : Array.isArray(rawIds) ? rawIds : rawIds.split(',');
  const ids = await resolveIds(ctx.database.db, 'campaign_mailings', customerId, list);
  if (ids.length > 0) await deleteMailings(ctx, customerId, ids);
  return {};
}

/** Deletes mailings in one transaction, or none when any of them has a send that is expanding or sending. */
async function deleteMailings(ctx: AppContext, customerId: number, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await ctx.database.db.transaction().execute(async (trx) => {
    const busy = await busyMailingIds(trx, ids);
    if (busy.length === 0 && (await deleteIdleMailings(trx, customerId, ids)) === ids.length) return;
    const named = busy.length > 0 ? busy : ids;
    throw new AppError(
      'marketing.mailing_in_use',
      `campaign mailing ${named.join(', ')} is being sent; pause the send or let it finish before deleting`,
      { extra: { campaign_mailing_ids: named } },
    );
  });
}

function requireContent(html: string | null, text: string | null): void {
  if (!html && !text)
    throw new AppError('marketing.mailing_invalid', 'campaign_mailing needs html_part, text_part or both', {
      details: [{ field: 'campaign_mailing.html_part', message: 'or text_part is required' }],
    });
}

async function refuseTaken(db: Queryable, customerId: number, subjectKey: string): Promise<void> {
  const existing = await findBySubjectKey(db, customerId, subjectKey);
  if (existing)
    throw new AppError(
      'marketing.subject_taken',
      'another campaign mailing of this account has the same subject',
      {
        details: [{ field: 'campaign_mailing.subject', message: 'is already used' }],
        extra: { campaign_mailing_id: Number(existing.id) },
      },
    );
}

/** Runs a write; a subject taken by a concurrent write is reported as a conflict. */
async function uniquely<T>(
  db: Queryable,
  customerId: number,
  subjectKey: string | undefined,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err) && subjectKey !== undefined) await refuseTaken(db, customerId, subjectKey);
    throw err;
  }
}

function attributesOf(r: MailingListRow): MailingAttributes {
  return {
    subject: r.subject,
    template_type: r.template_type,
    created_at: new Date(Number(r.created_at)).toISOString(),
    updated_at: new Date(Number(r.updated_at)).toISOString(),
    ...counterView(r),
  };
}

function itemView(r: MailingListRow): MailingItem {
  return { id: Number(r.id), uuid: r.uuid, type: 'campaign_mailing', attributes: attributesOf(r) };
}

function fullView(r: MailingRow): MailingFull {
  return {
    id: Number(r.id),
    uuid: r.uuid,
    type: 'campaign_mailing',
    attributes: {
      ...attributesOf(r),
      html_part: r.html_part,
      text_part: r.text_part,
      from_email: r.from_email,
      from_name: r.from_name,
      content_blocks: documentOf(r.content_blocks),
    },
  };
}

/** The clean fields, with a block document rendered into the HTML and text parts it stands for. */
async function cleanWithBlocks(input: MailingInput): Promise<MailingFields> {
  const expanded = await expandBlocks(input, 'campaign_mailing', 'html_part', 'text_part');
  const fields = cleanMailingInput(expanded.input);
  if (expanded.stored !== undefined) fields.content_blocks = expanded.stored;
  return fields;
}
