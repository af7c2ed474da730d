/**
 * The filters grammar of dynamic lists (segments) and of `GET /subscribers?filters=`: an array of groups, any of which
 * may match (OR), each an array of conditions that must all match (AND). A condition is `{field, op, terms}`.
 * `parseFilters` checks a value against the grammar and names the first problem; `filterSql` (filters.repository.ts)
 * turns parsed filters into SQL.
 */
import { AppError } from '../../errors/app-error.ts';
import { parseRef } from '../ids.ts';

const TEXT_OPS = [
  'is',
  'is_not',
  'contains',
  'not_contains',
  'starts_with',
  'ends_with',
  'exists',
  'not_exists',
] as const;
const DATE_OPS = ['before', 'after', 'within_days'] as const;
const ENGAGEMENT_OPS = ['is', 'is_not', 'within_days', 'exists', 'not_exists'] as const;

/** Subscriber columns a condition may name, with the operators each takes. */
const FIELDS: Record<string, { kind: Kind; ops: readonly string[] }> = {
  email: { kind: 'text', ops: TEXT_OPS },
  first_name: { kind: 'text', ops: TEXT_OPS },
  last_name: { kind: 'text', ops: TEXT_OPS },
  phone_number: { kind: 'text', ops: TEXT_OPS },
  unsubscribed: { kind: 'flag', ops: ['is'] },
  created_at: { kind: 'date', ops: DATE_OPS },
  updated_at: { kind: 'date', ops: DATE_OPS },
  subscription_list: { kind: 'list', ops: ['is', 'is_not'] },
  opened: { kind: 'engagement', ops: ENGAGEMENT_OPS },
  clicked: { kind: 'engagement', ops: ENGAGEMENT_OPS },
};
const CUSTOM_OPS = [...TEXT_OPS, 'before', 'after'] as const;
/** A custom field is named `custom_field:<name>` (also `custom_fields.<name>`). */
const CUSTOM = /^custom_fields?[:.](.+)$/s;

type Kind = 'text' | 'flag' | 'date' | 'list' | 'engagement' | 'custom';

/** One checked condition. */
export interface Condition {
  field: string;
  kind: Kind;
  /** The custom field's name, lower-cased, for `custom`. */
  custom?: string;
  op: string;
  terms: string[];
}

/** Checked filters: groups (OR) of conditions (AND). An empty array matches every subscriber. */
export type Filters = Condition[][];

/** Limits that keep one filter's SQL small. */
const MAX_GROUPS = 20;
const MAX_CONDITIONS = 50;
const MAX_TERMS = 100;

const invalid = (path: string, message: string) =>
  new AppError('marketing.filter_invalid', `${path}: ${message}`, { details: [{ field: path, message }] });

/** Parses `filters` (a JSON value, or a string holding JSON); throws marketing.filter_invalid naming the problem. */
export function parseFilters(raw: unknown, root = 'filters'): Filters {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw) as unknown;
    } catch {
      throw invalid(root, 'is not valid JSON');
    }
  }
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value)) throw invalid(root, 'must be an array of groups, each an array of conditions');
  // A flat array of conditions is one group.
  const groups = value.length > 0 && value.every((g) => !Array.isArray(g)) ? [value] : value;
  if (groups.length > MAX_GROUPS) throw invalid(root, `at most ${MAX_GROUPS} groups`);
  return groups.map((g: unknown, gi) => {
    if (!Array.isArray(g)) throw invalid(`${root}[${gi}]`, 'must be an array of conditions');
    if (g.length === 0) throw invalid(`${root}[${gi}]`, 'must hold at least one condition');
    if (g.length > MAX_CONDITIONS) throw invalid(`${root}[${gi}]`, `at most ${MAX_CONDITIONS} conditions`);
    return g.map((c: unknown, ci) => parseCondition(c, `${root}[${gi}][${ci}]`));
  });
}

function parseCondition(c: unknown, path: string): Condition {
  if (typeof c !== 'object' || c === null || Array.isArray(c))
    throw invalid(path, 'must be an object {field, op, terms}');
  const { field, op, terms } = c as Record<string, unknown>;
  if (typeof field !== 'string' || field === '') throw invalid(`${path}.field`, 'is required');
  const custom = CUSTOM.exec(field)?.[1]?.trim().toLowerCase();
  const spec = custom ? { kind: 'custom' as Kind, ops: CUSTOM_OPS as readonly string[] } : FIELDS[field];
  if (!spec) throw invalid(`${path}.field`, `unknown field "${field}"`);
  if (typeof op !== 'string' || !spec.ops.includes(op))
    throw invalid(
      `${path}.op`,
      `unknown op "${String(op)}" for field "${field}" (one of: ${spec.ops.join(', ')})`,
    );
  const list = terms === undefined || terms === null ? [] : Array.isArray(terms) ? terms : [terms];
  if (list.length > MAX_TERMS) throw invalid(`${path}.terms`, `at most ${MAX_TERMS} terms`);
  if (list.some((t) => typeof t !== 'string' && typeof t !== 'number' && typeof t !== 'boolean'))
    throw invalid(`${path}.terms`, 'must be strings or numbers');
  const texts = list.map((t) => String(t));
  if (op !== 'exists' && op !== 'not_exists' && texts.length === 0)
    throw invalid(`${path}.terms`, `op "${op}" needs at least one term`);
  checkTerms(spec.kind, op, texts, `${path}.terms`);
  return { field, kind: spec.kind, ...(custom && { custom }), op, terms: texts };
}

function checkTerms(kind: Kind, op: string, terms: string[], path: string): void {
  if (op === 'within_days' && !terms.every((t) => /^\d{1,5}$/.test(t)))
    throw invalid(path, 'within_days takes a number of days');
  if (kind === 'date' && (op === 'before' || op === 'after') && Number.isNaN(Date.parse(terms[0]!)))
    throw invalid(path, `"${terms[0]}" is not a date (use ISO 8601, e.g. 2026-01-31)`);
  if (kind === 'flag' && !['true', 'false'].includes(terms[0]!)) throw invalid(path, 'must be true or false');
  if ((kind === 'list' || kind === 'engagement') && (op === 'is' || op === 'is_not')) {
    const bad = terms.find((t) => parseRef(t) === null);
    if (bad !== undefined) throw invalid(path, `"${bad}" is not an id`);
  }
}
