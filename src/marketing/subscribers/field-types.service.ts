/** The account's subscriber custom field types (`/subscriber_custom_field_types`): listing, creating, renaming. */
import type { AppContext } from '../../context.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { AppError } from '../../errors/app-error.ts';
import { resolveId } from '../ids.repository.ts';
import {
  ensureFieldTypes,
  findFieldType,
  findFieldTypeByKey,
  listFieldTypes,
  renameFieldType,
} from './custom-fields.repository.ts';

/** A custom field type as shown. */
export interface FieldTypeView {
  id: string;
  type: 'subscriber_custom_field_type';
  attributes: { name: string; created_at: string };
}

const view = (r: { uuid: string; name: string; created_at: number }): FieldTypeView => ({
  id: r.uuid,
  type: 'subscriber_custom_field_type',
  attributes: { name: r.name, created_at: new Date(Number(r.created_at)).toISOString() },
});

/** The account's custom field types. */
export async function fieldTypesOf(ctx: AppContext, customerId: number): Promise<FieldTypeView[]> {
  return (await listFieldTypes(ctx.database.reader, customerId)).map(view);
}

/** Creates a custom field type; a name the account already has (letter case ignored) is refused. */
export async function createFieldType(
  ctx: AppContext,
  customerId: number,
  name: string,
): Promise<FieldTypeView> {
  const { clean, key } = checkName(name);
  const db = ctx.database.db;
  if (await findFieldTypeByKey(db, customerId, key)) throw taken(clean);
  await ensureFieldTypes(db, customerId, new Map([[key, clean]]), Date.now());
  const row = (await findFieldTypeByKey(db, customerId, key))!;
  return view(row);
}

/** Renames a custom field type (its values stay with it). */
export async function renameFieldTypeOf(
  ctx: AppContext,
  customerId: number,
  raw: string,
  name: string,
): Promise<FieldTypeView> {
  const db = ctx.database.db;
  const id = await resolveId(db, 'subscriber_custom_field_types', customerId, raw);
  const row = id === null ? undefined : await findFieldType(db, customerId, id);
  if (!row) throw new AppError('marketing.custom_field_not_found', `custom field type ${raw} was not found`);
  const { clean, key } = checkName(name);
  const other = await findFieldTypeByKey(db, customerId, key);
  if (other && Number(other.id) !== Number(row.id)) throw taken(clean);
  try {
    await renameFieldType(db, Number(row.id), clean, key);
  } catch (err) {
    if (isUniqueViolation(err)) throw taken(clean);
    throw err;
  }
  return view({ ...row, name: clean });
}

function checkName(name: string): { clean: string; key: string } {
  const clean = name.trim();
  if (!clean || clean.length > 255)
    throw new AppError('marketing.custom_field_invalid', 'name must be 1 to 255 characters', {
      details: [{ field: 'name', message: clean ? 'is too long' : 'must not be blank' }],
    });
  return { clean, key: clean.toLowerCase() };
}

const taken = (name: string) =>
  new AppError('marketing.custom_field_invalid', `a custom field named "${name}" already exists`, {
    details: [{ field: 'name', message: 'is already used by another custom field' }],
  });
