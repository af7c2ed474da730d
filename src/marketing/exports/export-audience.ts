/**
 * What a subscribers export covers, read from its request: a list (`subscription_list_id`, or
 * `from_subscription_list_id` as Paubox's clients send it), `filters`, `search` words, only `subscriber_ids`, minus
 * `except_ids`; and the address the finished export is announced to (`email`).
 */
import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors/app-error.ts';
import { parseMailbox } from '../../mail/addresses.ts';
import { keysByRef, refText, resolveIds } from '../ids.repository.ts';
import { requireList } from '../lists/lists.service.ts';
import { parseFilters, type Filters } from '../segments/filters.ts';

/** The body of `POST /subscribers_export_csv` as read. */
export interface SubscribersExportBody {
  subscription_list_id?: string | number;
  from_subscription_list_id?: string | number;
  filters?: unknown;
  search?: string;
  subscriber_ids?: (string | number)[];
  except_ids?: (string | number)[];
  email?: string;
}

/** The audience of a subscribers export, as recorded with the job. */
export interface ExportAudience {
  listId: number | null;
  filters: Filters;
  words?: string[];
  only?: number[];
  except?: number[];
}

const SEARCH = /^[\p{L}\p{N}\s]*$/u;

/** Reads the audience of a subscribers export; a bad value is 400 naming its field, an unknown list or subscriber 404. */
export async function exportAudience(
  ctx: AppContext,
  customerId: number,
  body: SubscribersExportBody,
): Promise<ExportAudience> {
  const db = ctx.database.db;
  const listRaw = listOf(body);
  const listId = listRaw === undefined ? null : (await requireList(db, customerId, listRaw)).id;
  const audience: ExportAudience = { listId, filters: parseFilters(body.filters ?? []) };
  const search = (body.search ?? '').trim();
  if (search !== '' && search !== '*') {
    if (!SEARCH.test(search)) refuse('search', 'may hold only letters, digits and whitespace, or be *');
    audience.words = search.split(/\s+/);
  }
  if (body.subscriber_ids !== undefined)
    audience.only = await requireSubscribers(ctx, customerId, body.subscriber_ids);
  if (body.except_ids?.length)
    audience.except = await resolveIds(db, 'subscribers', customerId, body.except_ids);
  return audience;
}

/** The address a finished export is announced to, or null; anything but one address is 400 naming `email`. */
export function exportRecipient(body: { email?: string }): string | null {
  const text = (body.email ?? '').trim();
  if (text === '') return null;
  const mailbox = parseMailbox(text);
  if (!mailbox || mailbox.name) refuse('email', 'must be one email address');
  return mailbox.address;
}

function listOf(body: SubscribersExportBody): string | number | undefined {
  const given = [body.subscription_list_id, body.from_subscription_list_id].filter(
    (v): v is string | number => v !== undefined && v !== '',
  );
  if (given.length === 2 && refText(given[0]!) !== refText(given[1]!))
    refuse('from_subscription_list_id', 'names another list than subscription_list_id');
  return given[0];
}

async function requireSubscribers(
  ctx: AppContext,
  customerId: number,
  raws: (string | number)[],
): Promise<number[]> {
  const found = await keysByRef(ctx.database.db, 'subscribers', customerId, raws);
  const missing = raws.find((r) => !found.has(refText(r)));
  if (missing !== undefined)
    throw new AppError('marketing.subscriber_not_found', `subscriber ${String(missing)} was not found`);
  return [...new Set(raws.map((r) => found.get(refText(r))!))];
}

function refuse(field: string, problem: string): never {
  throw new AppError('request.invalid', `${field} ${problem}`, { details: [{ field, message: problem }] });
}
