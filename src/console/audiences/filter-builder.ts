/**
 * The subscriber filter builder of a list's page: rows of field, operator and terms (comma-separated), each in a
 * numbered group; conditions of one group must all match, any group may match (the grammar of dynamic lists). It is a
 * plain GET form: "Add condition" and "Add group" submit it and the page comes back with one more empty row, so it works
 * without script. The rows become the `filters` JSON the subscriber list and dynamic lists take.
 */
import { html, type SafeHtml } from '../../http/html.ts';

/** One row of the builder as the form sent it. */
export interface FilterRow {
  group: number;
  field: string;
  op: string;
  terms: string;
}

const FIELDS: [string, string][] = [
  ['email', 'Email'],
  ['first_name', 'First name'],
  ['last_name', 'Last name'],
  ['phone_number', 'Phone'],
  ['unsubscribed', 'Unsubscribed from everything (true/false)'],
  ['created_at', 'Created'],
  ['updated_at', 'Changed'],
  ['subscription_list', 'On list (list id)'],
  ['opened', 'Opened (mailing id)'],
  ['clicked', 'Clicked (mailing id)'],
];
const OPS: [string, string][] = [
  ['is', 'is'],
  ['is_not', 'is not'],
  ['contains', 'contains'],
  ['not_contains', 'does not contain'],
  ['starts_with', 'starts with'],
  ['ends_with', 'ends with'],
  ['exists', 'has a value'],
  ['not_exists', 'has no value'],
  ['before', 'before (date)'],
  ['after', 'after (date)'],
  ['within_days', 'within the last days'],
];

const many = (v: unknown): string[] => (v === undefined ? [] : ([v].flat() as unknown[]).map(String));

/** The builder's rows from a query (`f_group`, `f_field`, `f_op`, `f_terms` repeated), plus an empty row when asked. */
export function readFilterRows(query: Record<string, unknown>): FilterRow[] {
  const fields = many(query.f_field);
  const groups = many(query.f_group);
  const ops = many(query.f_op);
  const terms = many(query.f_terms);
  const rows = fields.map((field, i) => ({
    group: Math.max(0, Math.min(19, (Number.parseInt(groups[i] ?? '1', 10) || 1) - 1)),
    field,
    op: ops[i] ?? 'is',
    terms: terms[i] ?? '',
  }));
  const filled = rows.filter((r) => r.field !== '');
  const last = filled.reduce((g, r) => Math.max(g, r.group), 0);
  if (query.add === 'condition' || filled.length === 0)
    filled.push({ group: last, field: '', op: 'is', terms: '' });
  if (query.add === 'group')
    filled.push({ group: filled.some((r) => r.field) ? last + 1 : last, field: '', op: 'is', terms: '' });
  return filled;
}

/** The filters JSON of the filled rows (groups in order), or '' when no row is filled. */
export function filtersJson(rows: FilterRow[]): string {
  const groups = new Map<number, { field: string; op: string; terms: string[] }[]>();
  for (const r of rows.filter((x) => x.field !== '')) {
    const list = groups.get(r.group) ?? [];
    const terms = r.terms
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    list.push({ field: r.field, op: r.op, terms });
    groups.set(r.group, list);
  }
  if (groups.size === 0) return '';
  return JSON.stringify([...groups.keys()].sort((x, y) => x - y).map((g) => groups.get(g)));
}

const options = (all: [string, string][], chosen: string) =>
  all.map(([v, l]) => html`<option value="${v}" ${v === chosen ? html`selected` : ''}>${l}</option>`);

/** The builder's fieldset (inside the list page's GET form). */
export function filterBuilder(rows: FilterRow[]): SafeHtml {
  return html`<fieldset class="filter-builder">
    <legend>Filters: every condition of a group must match; any group may match</legend>
    ${rows.map(
      (r, i) =>
        html`<div class="filter-row">
          <div class="field">
            <label for="f-group-${i}">Group</label>
            <input type="number" id="f-group-${i}" name="f_group" value="${String(r.group + 1)}" min="1" max="20" />
          </div>
          <div class="field">
            <label for="f-field-${i}">Field</label>
            <select id="f-field-${i}" name="f_field">
              <option value="">(none)</option>
              ${options(FIELDS, r.field)}
            </select>
          </div>
          <div class="field">
            <label for="f-op-${i}">Condition</label>
            <select id="f-op-${i}" name="f_op">
              ${options(OPS, r.op)}
            </select>
          </div>
          <div class="field">
            <label for="f-terms-${i}">Values (comma-separated)</label>
            <input type="text" id="f-terms-${i}" name="f_terms" value="${r.terms}" />
          </div>
        </div>`,
    )}
    <p class="actions">
      <button type="submit" name="add" value="condition">Add condition</button>
      <button type="submit" name="add" value="group">Add group</button>
    </p>
  </fieldset>`;
}
