/** Checks and normal forms of subscriber input shared by single and bulk writes: emails, names and custom fields. */
import { AppError } from '../../errors/app-error.ts';

const ADDRESS =
  /^[^\s@<>()[\]\\,;:"]+@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/i;

/** A custom field as sent: `{name, value}`. */
export interface CustomFieldInput {
  name: string;
  value?: string | number | boolean | null;
}

/** The trimmed email and its lower-cased key, or an error naming the field. */
export function checkEmail(email: string, field: string): { email: string; key: string } {
  const clean = email.trim();
  if (clean.length > 254 || !ADDRESS.test(clean))
    throw new AppError('marketing.invalid_email', `${field} is not a valid email address`, {
      details: [{ field, message: 'is not a valid email address' }],
    });
  return { email: clean, key: clean.toLowerCase() };
}

/** A name field: trimmed, null when absent or blank. */
export function cleanName(v: string | null | undefined): string | null {
  const t = v?.trim();
  return t ? t : null;
}

/** Custom fields keyed by lower-cased name (the last of repeated names wins), with the name as first sent. */
export function normalFields(
  fields: CustomFieldInput[] | undefined,
): Map<string, { name: string; value: string }> {
  const out = new Map<string, { name: string; value: string }>();
  for (const f of fields ?? []) {
    const name = f.name.trim();
    if (!name) continue;
    out.set(name.toLowerCase(), {
      name,
      value: f.value === undefined || f.value === null ? '' : String(f.value),
    });
  }
  return out;
}
