/** The HTML of an import's page: progress, rejected rows, the first rows as mapped and the column form. */
import {
  CONSENT_BASES,
  rejectedRows,
  type ImportField,
  type ImportView,
} from '../../marketing/imports/imports.service.ts';
import { assetUrl } from '../assets.ts';
import { html, type SafeHtml } from '../../http/html.ts';
import { csrfField } from '../layout.ts';
import type { ConsoleContext } from '../page.ts';
import { seg } from './audit.ts';

export const FIELD_LABELS: [ImportField | '', string][] = [
  ['', 'Ignore'],
  ['email', 'Email'],
  ['first_name', 'First name'],
  ['last_name', 'Last name'],
  ['custom', 'Custom field (named by the column)'],
];

export const STATE_TEXT: Record<string, string> = {
  uploaded: 'Uploaded: map the columns, then check the file',
  queued: 'Waiting for a worker',
  running: 'Running',
  checked: 'Checked: nothing was written yet',
  done: 'Imported',
  failed: 'Failed',
};

export function progressFields(i: ImportView) {
  return {
    state: STATE_TEXT[i.state] ?? i.state,
    percent: i.percent,
    rows_done: i.rows_done,
    added: i.added,
    updated: i.updated,
    failed: i.failed,
  };
}

export type Rejected = Awaited<ReturnType<typeof rejectedRows>>;

export function importBody(
  c: ConsoleContext,
  i: ImportView,
  preview: string[][],
  rejected: Rejected,
): SafeHtml {
  const live = i.state === 'queued' || i.state === 'running';
  const p = progressFields(i);
  const would = i.dry_run ? 'Would add' : 'Added';
  return html`<p><a href="/console/audiences/imports">← All imports</a></p>
    <div class="card" ${live ? html`data-poll="/console/audiences/imports/${seg(i.id)}/progress.json"` : ''}>
      <h2>Progress</h2>
      <p><strong data-field="state">${p.state}</strong>${i.dry_run && !live && i.state !== 'uploaded' ? ' (check only)' : ''}</p>
      <label for="import-progress">Read</label>
      <progress id="import-progress" max="100" value="${p.percent}" data-field="percent">${p.percent}%</progress>
      <dl class="stats">
        <div>
          <dt>Rows</dt>
          <dd data-field="rows_done">${p.rows_done.toLocaleString('en')}</dd>
        </div>
        <div>
          <dt>${would}</dt>
          <dd data-field="added">${p.added.toLocaleString('en')}</dd>
        </div>
        <div>
          <dt>${i.dry_run ? 'Would update' : 'Updated'}</dt>
          <dd data-field="updated">${p.updated.toLocaleString('en')}</dd>
        </div>
        <div>
          <dt>Rejected</dt>
          <dd data-field="failed">${p.failed.toLocaleString('en')}</dd>
        </div>
      </dl>
      ${i.consent_basis ? html`<p>Consent basis: ${CONSENT_BASES[i.consent_basis]}</p>` : ''}
      ${i.error ? html`<p class="error-text" role="alert">${i.error}</p>` : ''}
      ${live ? html`<script src="${assetUrl('progress.js')}" defer></script>` : ''}
    </div>
    ${!live && i.failed > 0 ? rejectedTable(i, rejected) : ''}
    ${['uploaded', 'checked', 'failed'].includes(i.state) && c.can('edit_content') ? mappingForm(c, i, preview) : ''}`;
}

function rejectedTable(i: ImportView, rows: Rejected): SafeHtml {
  return html`<div class="card">
    <h2>Rejected rows</h2>
    <p class="muted">
      ${i.failed > rows.length ? `The first ${rows.length} of ${i.failed.toLocaleString('en')}. ` : ''}These rows are not
      imported.
    </p>
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Line</th>
            <th scope="col">Email</th>
            <th scope="col">Reason</th>
          </tr>
        </thead>
        <tbody>
          ${rows.map(
            (r) => html`<tr>
              <td data-label="Line">${r.line}</td>
              <td data-label="Email">${r.email || '(empty)'}</td>
              <td data-label="Reason">${r.message}</td>
            </tr>`,
          )}
        </tbody>
      </table>
    </div>
    <p><a href="/console/audiences/imports/${seg(i.id)}/errors.csv">Download every rejected row (CSV)</a></p>
  </div>`;
}

/** The first rows of the file as its columns are mapped now. */
function previewTable(i: ImportView, rows: string[][]): SafeHtml {
  if (rows.length === 0) return html``;
  const shown = i.columns.map((col, n) => ({ col, n, to: i.mapping[n] })).filter((x) => x.to);
  const label = (to: ImportField, col: string) =>
    to === 'custom' ? col : (FIELD_LABELS.find(([v]) => v === to)?.[1] ?? to);
  return html`<h3>The first ${rows.length} rows, as mapped</h3>
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            ${shown.map((x) => html`<th scope="col">${label(x.to!, x.col)}</th>`)}
          </tr>
        </thead>
        <tbody>
          ${rows.map(
            (r) => html`<tr>
              ${shown.map((x) => html`<td data-label="${label(x.to!, x.col)}">${(r[x.n] ?? '').trim()}</td>`)}
            </tr>`,
          )}
        </tbody>
      </table>
    </div>`;
}

function mappingForm(c: ConsoleContext, i: ImportView, preview: string[][]): SafeHtml {
  const checked = i.state === 'checked';
  return html`<div class="card">
    <h2>Columns</h2>
    <form method="post" action="/console/audiences/imports/${seg(i.id)}/start">
      ${csrfField(c.csrfToken)}
      ${i.columns.map(
        (col, n) =>
          html`<div class="field">
            <label for="map-${n}">Column “${col}”</label>
            <select id="map-${n}" name="map_${n}">
              ${FIELD_LABELS.map(([v, l]) => html`<option value="${v}" ${(i.mapping[n] ?? '') === v ? html`selected` : ''}>${l}</option>`)}
            </select>
          </div>`,
      )}
      ${previewTable(i, preview)}
      <fieldset class="field">
        <legend>Why may you email these people?</legend>
        ${Object.entries(CONSENT_BASES).map(
          ([v, l]) =>
            html`<div class="check">
              <input type="radio" id="consent-${v}" name="consent" value="${v}" required ${i.consent_basis === v ? html`checked` : ''} />
              <label for="consent-${v}">${l}</label>
            </div>`,
        )}
      </fieldset>
      <p class="muted">
        ${
          checked
            ? 'The check is done: read the counts and rejected rows above, then import. Changing a column needs a new check.'
            : 'Check the file first: it counts what would change and lists rejected rows, and writes nothing.'
        }
      </p>
      <div class="actions">
        <button type="submit" name="mode" value="dry" class="button ${checked ? 'secondary' : ''}">
          ${checked ? 'Check again' : 'Check the file'}
        </button>
        ${checked ? html`<button type="submit" name="mode" value="import" class="button">Import</button>` : ''}
      </div>
    </form>
  </div>`;
}
