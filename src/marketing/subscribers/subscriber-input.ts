/** Checks and normal forms of subscriber input shared by single and bulk writes: emails, phones, names and custom fields. */
import { parsePhoneNumberFromString } from 'libphonenumber-js';
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

/** The prefix of the unique key of a subscriber known by phone only (its E.164 number follows). */
export const PHONE_KEY_PREFIX = 'tel:';

/** A phone number as stored: E.164 and as typed (trimmed); both null when absent or blank. */
export interface PhoneValue {
  e164: string | null;
  typed: string | null;
}

/**
 * A phone number in international form (`+` and the country code; spaces, dots, dashes and brackets allowed) checked
 * against the numbering plan of its country, or an error naming the field.
 */
export function checkPhone(input: string | null | undefined, field: string): PhoneValue {
  const typed = input?.trim() ?? '';
  if (typed === '') return { e164: null, typed: null };
  const parsed = parsePhoneNumberFromString(typed);
  if (!parsed?.isValid())
    throw new AppError('marketing.invalid_phone', `${field} is not a valid phone number`, {
      details: [{ field, message: 'is not a valid phone number in international form (+ and country code)' }],
    });
  return { e164: parsed.number, typed };
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
