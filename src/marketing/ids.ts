/** Marketing ids: integers shown as strings, accepted as strings or numbers (clients send both). */

/** A positive integer id from a path, query or body value; null when the value cannot be an id (so nothing is found). */
export function parseId(value: string | number | undefined | null): number | null {
  if (value === undefined || value === null) return null;
  const text = String(value).trim();
  if (!/^[1-9][0-9]{0,15}$/.test(text)) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : null;
}

/** The URL prefixes every marketing operation is served under: with the account's username, and without it. */
export const MARKETING_PREFIXES = ['/v1/marketing/:username', '/v1/marketing'] as const;
