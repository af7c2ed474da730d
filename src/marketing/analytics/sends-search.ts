/**
 * The `search` of the sends table: `Field:Value` (`subscription_list_name:Newsletter`), the same as a JSON object
 * with one field (`{"subscription_list_name": "Newsletter"}`), or a plain term with no colon (`MCP`), which matches a
 * send whose subject or list name contains it. Text fields match when they contain the value, letter case ignored; id
 * fields match exactly.
 */
import { AppError } from '../../errors/app-error.ts';
import { parseRef } from '../ids.ts';
import type { SendsFilter } from './analytics.repository.ts';

/** The fields a search may name, and the column each compares. */
const FIELDS: Record<string, Extract<SendsFilter, { column: string }>['column']> = {
  subscription_list_name: 'subscription_list_name',
  subject: 'subject',
  id: 'id',
  campaign_mailing_id: 'campaign_mailing_id',
  marketing_email_id: 'campaign_mailing_id',
};

/** The filter a search asks for; null for none (absent or blank). Anything else is a 400 naming `search`. */
export function parseSendsSearch(raw: string | undefined): SendsFilter | null {
  const text = (raw ?? '').trim();
  if (text === '') return null;
  const json = text.startsWith('{') || text.startsWith('[');
  if (!json && !text.includes(':')) return { kind: 'anywhere', value: text };
  const [field, value] = json ? fromJson(text) : fromPair(text);
  const column = FIELDS[field.trim().toLowerCase()];
  if (!column) refuse(`names the unknown field "${field}"; use one of ${Object.keys(FIELDS).join(', ')}`);
  const wanted = value.trim();
  if (wanted === '') refuse(`gives no value for ${field}`);
  if (column === 'subscription_list_name' || column === 'subject')
    return { kind: 'contains', column, value: wanted };
  const id = parseRef(wanted);
  if (id === null) refuse(`${field} must be an id`);
  return { kind: 'equals', column, value: id };
}

function fromPair(text: string): [string, string] {
  const colon = text.indexOf(':');
  if (colon === 0)
    refuse('must be Field:Value, for example subscription_list_name:Newsletter, or a plain term');
  return [text.slice(0, colon), text.slice(colon + 1)];
}

function fromJson(text: string): [string, string] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    refuse('is not valid JSON');
  }
  const entries =
    parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? Object.entries(parsed) : [];
  const [entry] = entries;
  if (entries.length !== 1 || !entry || !['string', 'number'].includes(typeof entry[1]))
    refuse('as JSON must be an object with one field, for example {"subscription_list_name": "Newsletter"}');
  return [entry[0], String(entry[1])];
}

function refuse(problem: string): never {
  throw new AppError('request.invalid', `search ${problem}`, {
    details: [{ field: 'search', message: problem }],
  });
}
