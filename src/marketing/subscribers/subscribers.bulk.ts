/**
 * Bulk writes of subscribers. A bulk create checks every entry first and then writes all of them in one transaction:
 * new emails become subscribers, existing ones (letter case ignored) are updated. A bulk delete removes subscribers
 * from one list, or from the account altogether, keeping every list's member counter right.
 */
import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors/app-error.ts';
import { parseRef } from '../ids.ts';
import { resolveIds } from '../ids.repository.ts';
import { bumpSubscriberCount, requireList } from '../lists/lists.service.ts';
import type { Queryable } from '../../db/types.ts';
import type { Dialect } from '../../db/connect.ts';
import { ensureFieldTypes } from './custom-fields.repository.ts';
import {
  addMembersAtOnce,
  insertSubscribersAtOnce,
  upsertFieldValuesAtOnce,
} from './subscribers.bulk.repository.ts';
import {
  checkEmail,
  checkPhone,
  cleanName,
  normalFields,
  type CustomFieldInput,
  type PhoneValue,
} from './subscriber-input.ts';
import {
  deleteSubscribers,
  findByEmailKeys,
  membershipCounts,
  removeMembers,
  updateSubscriber,
} from './subscribers.repository.ts';
import { joinLists, type RawId } from './subscribers.service.ts';

/** One entry of a bulk create. */
export interface BulkEntry {
  email: string;
  first_name?: string | null;
  last_name?: string | null;
  phone_number?: string | null;
  custom_fields?: CustomFieldInput[];
}

/** What a bulk create did. */
export interface BulkResult {
  num_subscribers_added: number;
  num_subscribers_updated: number;
}

interface Checked extends BulkEntry {
  email: string;
  key: string;
  /** The checked phone when the entry (or a repeat of its email) named one. */
  phone?: PhoneValue;
}

/**
 * Creates or updates many subscribers in one transaction, all on the default list and on `listRaw` when given. New
 * subscribers, their custom field values and their memberships are each written by one statement.
 */
export async function bulkCreate(
  ctx: AppContext,
  customerId: number,
  entries: BulkEntry[],
  listRaw?: RawId,
): Promise<BulkResult> {
  const checked = checkEntries(entries);
  const { db, dialect } = ctx.database;
  const list = listRaw === undefined ? null : await requireList(db, customerId, listRaw);
  const now = Date.now();
  return db.transaction().execute(async (trx) => {
    const existing = await findByEmailKeys(trx, customerId, [...checked.keys()]);
    const fresh = [...checked.values()].filter((e) => !existing.has(e.key));
    const ids = new Map<string, number>();
    for (const e of checked.values()) {
      const row = existing.get(e.key);
      if (!row) continue;
      ids.set(e.key, Number(row.id));
      await updateSubscriber(trx, Number(row.id), {
        ...(e.first_name !== undefined && { first_name: cleanName(e.first_name) }),
        ...(e.last_name !== undefined && { last_name: cleanName(e.last_name) }),
        ...(e.phone && { phone_number: e.phone.e164, phone_number_input: e.phone.typed }),
        updated_at: now,
      });
    }
    const created = await insertSubscribersAtOnce(
      trx,
      dialect,
      customerId,
      fresh.map((e) => ({
        email: e.email,
        key: e.key,
        first_name: cleanName(e.first_name),
        last_name: cleanName(e.last_name),
        phone: e.phone ?? null,
      })),
      now,
    );
    for (const [key, id] of created) ids.set(key, id);
    const fields = [...checked.values()].map((e) => ({ id: ids.get(e.key)!, fields: e.custom_fields }));
    await setManyFields(trx, dialect, customerId, fields, now);
    await joinLists(trx, customerId, [...ids.values()], list?.id ?? null, now, (db, listId, sids, at) =>
      addMembersAtOnce(db, dialect, listId, sids, at),
    );
    return { num_subscribers_added: created.size, num_subscribers_updated: ids.size - created.size };
  });
}

/** Stores the custom field values of many subscribers: the account's field types once, then all values in one statement. */
async function setManyFields(
  db: Queryable,
  dialect: Dialect,
  customerId: number,
  subscribers: { id: number; fields: CustomFieldInput[] | undefined }[],
  now: number,
): Promise<void> {
  const normal = subscribers.map((s) => ({ id: s.id, fields: normalFields(s.fields) }));
  const names = new Map<string, string>();
  for (const s of normal) for (const [key, f] of s.fields) if (!names.has(key)) names.set(key, f.name);
  if (names.size === 0) return;
  const types = await ensureFieldTypes(db, customerId, names, now);
  await upsertFieldValuesAtOnce(
    db,
    dialect,
    normal.flatMap((s) =>
      [...s.fields].map(([key, f]) => ({
        subscriber_id: s.id,
        field_type_id: types.get(key)!,
        value: f.value,
      })),
    ),
  );
}

/**
 * Removes subscribers named by a comma-separated id text. With a list (other than the default list) they leave that
 * list; otherwise they are deleted from the account. Ids that are not the account's subscribers are skipped.
 */
export async function bulkDelete(
  ctx: AppContext,
  customerId: number,
  idsText: string,
  listRaw?: RawId,
): Promise<Record<string, never>> {
  const ids = parseIdList(idsText);
  const db = ctx.database.db;
  const list = listRaw === undefined ? null : await requireList(db, customerId, listRaw);
  const now = Date.now();
  await db.transaction().execute(async (trx) => {
    const mine = await resolveIds(trx, 'subscribers', customerId, ids);
    if (mine.length === 0) return;
    if (list && list.is_default !== 1) {
      await bumpSubscriberCount(trx, list.id, -(await removeMembers(trx, list.id, mine)), now);
      return;
    }
    for (const [listId, n] of await membershipCounts(trx, mine))
      await bumpSubscriberCount(trx, listId, -n, now);
    await deleteSubscribers(trx, customerId, mine);
  });
  return {};
}

/** Checks every entry before anything is written; repeated emails merge, the later entry's fields winning. */
function checkEntries(entries: BulkEntry[]): Map<string, Checked> {
  const out = new Map<string, Checked>();
  entries.forEach((e, i) => {
    const { email, key } = checkEmail(e.email, `subscribers[${i}].email`);
    const phone =
      e.phone_number === undefined ? undefined : checkPhone(e.phone_number, `subscribers[${i}].phone_number`);
    const before = out.get(key);
    out.set(key, {
      ...before,
      ...e,
      email: before?.email ?? email,
      key,
      phone: phone ?? before?.phone,
      custom_fields: [...(before?.custom_fields ?? []), ...(e.custom_fields ?? [])],
    });
  });
  return out;
}

function parseIdList(text: string): string[] {
  const parts = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const ids = parts.map(parseRef);
  const bad = parts.find((_, i) => ids[i] === null);
  if (parts.length === 0 || bad !== undefined)
    throw new AppError(
      'request.invalid',
      `subscriber_ids must be comma-separated subscriber ids${bad !== undefined ? `; "${bad}" is not one` : ''}`,
      {
        details: [{ field: 'subscriber_ids', message: 'must be comma-separated subscriber ids' }],
      },
    );
  return [...new Set(parts)];
}
