/**
 * The builder page's HTML: one form holding the whole working definition (so every button works with JavaScript off),
 * a card per component with its properties and move/delete buttons, the add control, the JSON view, and the live
 * preview of the hosted page in an iframe beside it at phone or desktop width.
 */
import { COMPONENTS, type PropSpec } from '../../forms/components/components.ts';
import { ownValue } from '../../own.ts';
import type { Component } from '../../forms/components/component-types.ts';
import { MASKS } from '../../forms/components/masks.ts';
import { assetUrl, unsavedChangesScript } from '../assets.ts';
import { html, type SafeHtml } from '../../http/html.ts';
import { csrfField } from '../layout.ts';
import { DEFAULT_AFFIRMATION } from '../../forms/definitions/definition.ts';
import { extraProps, propText, PROP_LABELS, TYPE_LABELS, type BuilderState } from './builder-state.ts';

/** What the builder page shows. */
export interface BuilderView {
  formId: string;
  state: BuilderState;
  csrfToken: string;
  canEdit: boolean;
  /** Whether the user may open the form's responses (protected content), so the Responses tab is shown. */
  canReadResponses: boolean;
  active: boolean;
  /** The service's refusal of the last save, or a step's problem. */
  error?: string;
  /** The component the error names (form_json.body[i]), to mark it. */
  errorIndex?: number;
  /** True when the page shows changes not saved yet (after a step or a refused save): leaving it asks first. */
  unsaved?: boolean;
}

/** The stylesheet and script of the forms pages (placed in the body, so the shared frame stays as it is). */
export function formsAssets(): SafeHtml {
  return html`<link rel="stylesheet" href="${assetUrl('forms.css')}" />
    <script src="${assetUrl('forms.js')}" defer></script>`;
}

/** The sub-navigation of one form's pages; Responses only for those who may read them. */
export function formTabs(
  id: string,
  here: 'build' | 'look' | 'share' | 'responses',
  canReadResponses: boolean,
): SafeHtml {
  const tabs = [
    ['build', 'Build', `/console/forms/${id}`],
    ['look', 'Look', `/console/forms/${id}/look`],
    ['share', 'Share', `/console/forms/${id}/share`],
    ...(canReadResponses ? ([['responses', 'Responses', `/console/forms/${id}/responses`]] as const) : []),
  ] as const;
  return html`<nav class="tabs" aria-label="This form">
    <a href="/console/forms">All forms</a>
    ${tabs.map(([key, label, href]) => html`<a href="${href}" ${key === here ? html`aria-current="page"` : ''}>${label}</a>`)}
  </nav>`;
}

function control(i: number, name: string, spec: PropSpec, value: unknown, disabled: boolean): SafeHtml {
  const id = `c${i}-${name}`;
  const field = `c${i}.p.${name}`;
  const label = PROP_LABELS[name] ?? name;
  const text = propText(spec, value);
  if (spec.kind === 'boolean')
    return html`<div class="check">
      <input type="checkbox" id="${id}" name="${field}" value="true" ${value === true ? 'checked' : ''} ${disabled ? 'disabled' : ''} />
      <label for="${id}">${label}</label>
    </div>`;
  let input: SafeHtml;
  if (spec.kind === 'mask')
    input = html`<select id="${id}" name="${field}" ${disabled ? 'disabled' : ''}>
      <option value="">Any</option>
      ${MASKS.filter((m) => m !== 'Any').map((m) => html`<option ${m === text ? 'selected' : ''}>${m}</option>`)}
    </select>`;
  else if (spec.kind === 'options')
    input = html`<textarea id="${id}" name="${field}" rows="3" ${disabled ? 'disabled' : ''}>${text}</textarea>`;
  else
    input = html`<input
      id="${id}"
      name="${field}"
      value="${text}"
      type="${spec.kind === 'date' ? 'date' : 'text'}"
      ${spec.kind === 'integer' || spec.kind === 'number' ? html`inputmode="decimal"` : ''}
      ${disabled ? 'disabled' : ''}
    />`;
  return html`<div class="field"><label for="${id}">${label}${spec.required ? ' *' : ''}</label>${input}</div>`;
}

function card(c: Component, i: number, count: number, v: BuilderView): SafeHtml {
  const spec = ownValue(COMPONENTS, c.type)!;
  const extra = extraProps(c);
  const ro = !v.canEdit;
  const name = typeof c.properties.field_name === 'string' ? c.properties.field_name : '';
  return html`<li class="component ${v.errorIndex === i ? 'has-error' : ''}" data-index="${i}" ${v.canEdit ? html`draggable="true"` : ''}>
    <fieldset>
      <legend>${i + 1}. ${TYPE_LABELS[c.type] ?? c.type}${name ? html` <span class="muted mono">${name}</span>` : ''}</legend>
      <input type="hidden" name="c${i}.type" value="${c.type}" />
      <input type="hidden" name="c${i}.id" value="${c.id}" />
      ${Object.keys(extra).length ? html`<input type="hidden" name="c${i}.extra" value="${JSON.stringify(extra)}" />` : ''}
      ${Object.entries(spec.props)
        .filter(([prop]) => prop !== 'field_name')
        .map(([prop, p]) => control(i, prop, p, c.properties[prop], ro))}
      ${
        'field_name' in spec.props
          ? html`<details class="advanced">
              <summary>Advanced<span class="visually-hidden"> settings of component ${i + 1}</span></summary>
              ${control(i, 'field_name', spec.props.field_name!, c.properties.field_name, ro)}
              <p class="muted">The key of the answer in exports and the API, made from the label. Change it before responses arrive.</p>
            </details>`
          : ''
      }
      ${
        v.canEdit
          ? html`<div class="actions component-actions">
              <button type="submit" name="op" value="up:${i}" class="secondary" ${i === 0 ? 'disabled' : ''}>
                Move up<span class="visually-hidden"> component ${i + 1}</span>
              </button>
              <button type="submit" name="op" value="down:${i}" class="secondary" ${i === count - 1 ? 'disabled' : ''}>
                Move down<span class="visually-hidden"> component ${i + 1}</span>
              </button>
              <button type="submit" name="op" value="delete:${i}" class="danger">
                Delete<span class="visually-hidden"> component ${i + 1}</span>
              </button>
            </div>`
          : ''
      }
    </fieldset>
  </li>`;
}

/** The builder page body. */
export function builderBody(v: BuilderView): SafeHtml {
  return html`${formsAssets()} ${v.canEdit ? unsavedChangesScript() : ''} ${formTabs(v.formId, 'build', v.canReadResponses)}
    ${v.error ? html`<div class="flash flash-error" role="alert" id="builder-error"><strong>Not saved:</strong> ${v.error}</div>` : ''}
    ${publishBar(v)}
    <div class="builder">${editorForm(v)} ${previewSection(v)}</div>`;
}

/** The publish or unpublish button with the form's state; for readers, that they may only look. */
function publishBar(v: BuilderView): SafeHtml {
  if (!v.canEdit)
    return html`<p class="muted">You may look at this form; changing it needs the editor role.</p>`;
  return html`<form method="post" action="/console/forms/${v.formId}/${v.active ? 'unpublish' : 'publish'}" class="inline publish">
    ${csrfField(v.csrfToken)}
    <button type="submit" class="${v.active ? '' : 'primary'}">${v.active ? 'Unpublish' : 'Publish'}</button>
    <span class="muted"
      >${v.active ? 'The hosted page accepts responses.' : 'Publish to accept responses on the hosted page.'}</span
    >
  </form>`;
}

/** The one form holding the working definition: title, components, add control, JSON view and the save buttons. */
function editorForm(v: BuilderView): SafeHtml {
  const { state } = v;
  const ro = !v.canEdit;
  return html`<form method="post" action="/console/forms/${v.formId}" class="builder-editor" id="builder-form" data-unsaved="${v.unsaved ? 'dirty' : ''}">
    ${csrfField(v.csrfToken)}
    <input type="hidden" name="count" value="${state.components.length}" />
    <div class="card">
      <div class="field">
        <label for="title">Title</label
        ><input type="text" id="title" name="title" value="${state.title}" required ${ro ? 'disabled' : ''} />
      </div>
      <div class="field">
        <label for="description">Description (shown under the title)</label>
        <textarea id="description" name="description" rows="2" ${ro ? 'disabled' : ''}>${state.description}</textarea>
      </div>
      <p class="muted">Status: <strong>${v.active ? 'published (accepting responses)' : 'draft (not accepting responses)'}</strong></p>
    </div>
    ${settingsCard(v)}
    <ol class="components" id="components">
      ${state.components.map((c, i) => card(c, i, state.components.length, v))}
    </ol>
    ${state.components.length === 0 ? html`<p class="muted">No components yet: add the first one below.</p>` : ''}
    ${
      v.canEdit
        ? html`<fieldset class="card add">
            <legend>Add a component</legend>
            <div class="field">
              <label for="add_label">Label of the new component</label>
              <input type="text" id="add_label" name="add_label" maxlength="200" aria-describedby="add-hint" />
              <p class="muted" id="add-hint">What the person filling in the form reads, such as "Date of birth".</p>
            </div>
            <div class="field">
              <label for="add_type">Type of the new component</label>
              <select id="add_type" name="add_type">
                ${Object.keys(COMPONENTS).map((t) => html`<option value="${t}">${TYPE_LABELS[t] ?? t}</option>`)}
              </select>
            </div>
            <button type="submit" name="op" value="add">Add</button>
          </fieldset>`
        : ''
    }
    ${jsonView(v)}
    <div class="actions sticky-actions">
      ${
        v.canEdit
          ? html`<button type="submit" name="op" value="save" class="primary">Save</button>
              <button
                type="submit"
                formaction="/console/forms/${v.formId}/preview"
                formtarget="preview"
                name="op"
                value="preview"
                id="preview-button"
                class="secondary"
              >
                Refresh preview
              </button>`
          : ''
      }
    </div>
  </form>`;
}

/** The form's settings that are not about its look: who is notified of responses, and the signature. */
function settingsCard(v: BuilderView): SafeHtml {
  const { state } = v;
  const ro = v.canEdit ? '' : 'disabled';
  return html`<fieldset class="card settings" id="settings">
    <legend>Responses and signature</legend>
    <div class="field">
      <label for="recipient">Notify of each response (email addresses, comma-separated)</label>
      <input type="text" id="recipient" name="recipient" value="${state.recipient}" inputmode="email" autocomplete="off" maxlength="5000" aria-describedby="recipient-hint" ${ro} />
      <p class="muted" id="recipient-hint">Leave empty to notify no one. The email says a response arrived; the answers stay in the console.</p>
    </div>
    <div class="check">
      <input type="hidden" name="signable" value="" ${ro} />
      <input type="checkbox" id="signable" name="signable" value="true" ${state.signable ? 'checked' : ''} aria-describedby="signable-hint" ${ro} />
      <label for="signable">Requires a signature</label>
    </div>
    <p class="muted" id="signable-hint">Records the signer's evidence with each response: the signature, the time, the address it came from and the sentence below. Needs a Signature component.</p>
    <div class="field">
      <label for="affirmation">The sentence the signer affirms</label>
      <textarea id="affirmation" name="affirmation" rows="3" maxlength="1000" aria-describedby="affirmation-hint" ${ro}>${state.affirmation}</textarea>
      <p class="muted" id="affirmation-hint">Shown beside the signature field. Leave empty for the standard sentence: ${DEFAULT_AFFIRMATION}</p>
    </div>
  </fieldset>`;
}

/** The definition as `form_json`, editable for editors. */
function jsonView(v: BuilderView): SafeHtml {
  const json = JSON.stringify({ body: v.state.components }, null, 2);
  return html`<details class="card json-view">
    <summary>JSON view (for experts)</summary>
    <label for="json">The definition as <code>form_json</code></label>
    <textarea id="json" name="json" rows="14" class="mono" ${v.canEdit ? '' : 'readonly'}>${json}</textarea>
    ${v.canEdit ? html`<button type="submit" name="op" value="json">Apply JSON</button>` : ''}
  </details>`;
}

/** The live preview of the hosted page at phone or desktop width. */
function previewSection(v: BuilderView): SafeHtml {
  return html`<section class="builder-preview" aria-labelledby="preview-heading">
    <h2 id="preview-heading">Preview</h2>
    <div class="preview-widths">
      <fieldset class="width-toggle">
        <legend>Width</legend>
        <input type="radio" name="width" id="w-phone" value="phone" form="none" checked />
        <label for="w-phone">Phone</label>
        <input type="radio" name="width" id="w-desktop" value="desktop" form="none" />
        <label for="w-desktop">Desktop</label>
      </fieldset>
      <iframe name="preview" title="Preview of the hosted page" src="/console/forms/${v.formId}/preview"></iframe>
    </div>
  </section>`;
}
