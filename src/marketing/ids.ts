/**
 * Marketing ids. Rows keep integer primary keys inside; the API shows and takes each object's random UUID (`uuid`
 * column). During the transition from integer ids, the old integer form (`"12"` or `12`) is still accepted on input;
 * answers always carry the UUID.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** A reference to a row as sent: its UUID (lower-cased), or its integer id in the old form; null when it can be neither. */
export type IdRef = { uuid: string } | { id: number };

/** Reads an id from a path, query or body value; null when the value cannot be an id (so nothing is found). */
export function parseRef(value: string | number | undefined | null): IdRef | null {
  if (value === undefined || value === null) return null;
  const text = String(value).trim();
  if (UUID.test(text)) return { uuid: text.toLowerCase() };
  const id = parseId(text);
  return id === null ? null : { id };
}

/** A positive integer id (of objects that keep integer ids, and the old form of marketing ids); null otherwise. */
export function parseId(value: string | number | undefined | null): number | null {
  if (value === undefined || value === null) return null;
  const text = String(value).trim();
  if (!/^[1-9][0-9]{0,15}$/.test(text)) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : null;
}

/** Whether a value is a UUID in the canonical textual form. */
export const isUuid = (value: string): boolean => UUID.test(value);

/** The URL prefixes every marketing operation is served under: with the account's username, and without it. */
export const MARKETING_PREFIXES = ['/v1/marketing/:username', '/v1/marketing'] as const;
