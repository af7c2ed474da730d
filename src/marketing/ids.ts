/**
 * Marketing ids. Every row has an integer primary key and a random UUID (`uuid` column). Subscription lists, campaign
 * mailings and campaign mailing sends answer with the integer as `id` and the UUID as `uuid`; the other objects answer
 * with the UUID as `id`. Every id is accepted in either form on input: a number-looking value (`"12"` or `12`) is the
 * integer, anything else must be the UUID; a list may also be named `default` (the account's default list). An id is
 * taken exactly as sent: surrounding spaces or control characters make it no id, so nothing is found (404).
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** A reference to a row as sent: its UUID (lower-cased), or its integer id; null when it can be neither. */
export type IdRef = { uuid: string } | { id: number };

/** Reads an id from a path, query or body value; null when the value cannot be an id (so nothing is found). */
export function parseRef(value: string | number | undefined | null): IdRef | null {
  if (value === undefined || value === null) return null;
  const text = String(value);
  if (UUID.test(text)) return { uuid: text.toLowerCase() };
  const id = parseId(text);
  return id === null ? null : { id };
}

/** A positive integer id; null otherwise. */
export function parseId(value: string | number | undefined | null): number | null {
  if (value === undefined || value === null) return null;
  const text = String(value);
  if (!/^[1-9][0-9]{0,15}$/.test(text)) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : null;
}

/** The word that names the account's default subscription list wherever a list id is taken. */
export const DEFAULT_LIST_REF = 'default';

/** Whether an id as sent names the account's default list (`default`, in any letter case). */
export function isDefaultListRef(value: string | number | undefined | null): boolean {
  return typeof value === 'string' && value.toLowerCase() === DEFAULT_LIST_REF;
}

/** Whether a value is a UUID in the canonical textual form. */
export const isUuid = (value: string): boolean => UUID.test(value);

/** The URL prefixes every marketing operation is served under: with the account's username, and without it. */
export const MARKETING_PREFIXES = ['/v1/marketing/:username', '/v1/marketing'] as const;
