/**
 * Server-side HTML of each component type for the hosted page: native controls that work with JavaScript off, a label
 * (or fieldset legend) for every input, and the field's error message next to it, tied with aria-describedby.
 * Component `text` is HTML already sanitized when the definition was stored (inserted with `raw`); every other value
 * is escaped by the `html` template.
 */
import { html, raw, type SafeHtml } from '../../http/html.ts';
import { flag, num, optionsOf, str, type Component } from './component-types.ts';
import { maskInput, type Mask } from './masks.ts';

/** What the renderer knows about one component on this page. */
export interface FieldView {
  index: number;
  /** The value to show again (after a failed submit), or undefined. */
  value: unknown;
  error?: string;
  /** On a signable form's Signature field: the sentence the signer affirms, shown beside the field. */
  affirmation?: string;
}

const controlId = (v: FieldView) => `sp-${v.index}`;
const errorId = (v: FieldView) => `sp-${v.index}-error`;
const asText = (value: unknown) =>
  typeof value === 'string' || typeof value === 'number' ? String(value) : '';
/** A component's `text` property: HTML sanitized when the definition was stored. */
const sanitized = (c: Component) => raw(str(c, 'text'));

function attrs(pairs: Record<string, string | number | boolean | undefined>): SafeHtml[] {
  return Object.entries(pairs)
    .filter(([, v]) => v !== undefined && v !== false)
    .map(([k, v]) => (v === true ? html` ${k}` : html` ${k}="${String(v)}"`));
}

function labelHtml(c: Component, v: FieldView, tag: 'label' | 'legend' = 'label'): SafeHtml {
  const text = str(c, 'text') ? sanitized(c) : str(c, 'field_name');
  const req = flag(c, 'required') ? html` <span class="sp-required" aria-hidden="true">*</span>` : '';
  return tag === 'label'
    ? html`<label for="${controlId(v)}">${text}${req}</label>`
    : html`<legend>${text}${req}</legend>`;
}

function errorHtml(v: FieldView): SafeHtml | '' {
  return v.error ? html`<p class="sp-error" id="${errorId(v)}">${v.error}</p>` : '';
}

/** Attributes every control shares: name, id, required, and the error link when there is one. */
function common(c: Component, v: FieldView): Record<string, string | boolean | undefined> {
  return {
    name: str(c, 'field_name'),
    id: controlId(v),
    required: flag(c, 'required'),
    'aria-invalid': v.error ? 'true' : undefined,
    'aria-describedby': v.error ? errorId(v) : undefined,
  };
}

function wrap(c: Component, v: FieldView, inner: SafeHtml): SafeHtml {
  return html`<div class="sp-field sp-${c.type}${v.error ? ' sp-has-error' : ''}">${inner}</div>`;
}

/** Renderers by component type. */
export const RENDER: Record<string, (c: Component, v: FieldView) => SafeHtml> = {
  TextInput(c, v) {
    const mask = maskInput((str(c, 'input_mask', 'Any') as Mask) || 'Any');
    const input = html`<input${attrs({ ...common(c, v), ...mask, value: asText(v.value), placeholder: str(c, 'placeholder') || undefined, maxlength: num(c, 'max_length') })}>`;
    return wrap(c, v, html`${labelHtml(c, v)}${input}${errorHtml(v)}`);
  },
  TextArea(c, v) {
    const area = html`<textarea${attrs({ ...common(c, v), rows: num(c, 'rows') ?? 4, placeholder: str(c, 'placeholder') || undefined, maxlength: num(c, 'max_length') })}>${asText(v.value)}</textarea>`;
    return wrap(c, v, html`${labelHtml(c, v)}${area}${errorHtml(v)}`);
  },
  Select(c, v) {
    const chosen = asText(v.value);
    const opts = [
      html`<option value="">${str(c, 'placeholder') || 'Choose…'}</option>`,
      optionsOf(c).map(
        (o) => html`<option${attrs({ value: o.value, selected: o.value === chosen })}>${o.label}</option>`,
      ),
    ];
    return wrap(c, v, html`${labelHtml(c, v)}<select${attrs(common(c, v))}>${opts}</select>${errorHtml(v)}`);
  },
  RadioGroup: (c, v) => choiceGroup(c, v, 'radio'),
  CheckboxGroup: (c, v) => choiceGroup(c, v, 'checkbox'),
  Checkbox(c, v) {
    const box = html`<input${attrs({ ...common(c, v), type: 'checkbox', value: 'true', checked: v.value === true || v.value === 'true' || v.value === 'on' })}>`;
    return wrap(c, v, html`<div class="sp-check">${box}${labelHtml(c, v)}</div>${errorHtml(v)}`);
  },
  DateInput(c, v) {
    const input = html`<input${attrs({ ...common(c, v), type: 'date', value: asText(v.value), min: str(c, 'min') || undefined, max: str(c, 'max') || undefined })}>`;
    return wrap(c, v, html`${labelHtml(c, v)}${input}${errorHtml(v)}`);
  },
  NumberInput(c, v) {
    const step = flag(c, 'integer') ? 1 : (num(c, 'step') ?? 'any');
    const input = html`<input${attrs({ ...common(c, v), type: 'number', value: asText(v.value), min: num(c, 'min'), max: num(c, 'max'), step })}>`;
    return wrap(c, v, html`${labelHtml(c, v)}${input}${errorHtml(v)}`);
  },
  FileUpload(c, v) {
    const accept = Array.isArray(c.properties.accept)
      ? (c.properties.accept as string[]).join(',')
      : undefined;
    const input = html`<input${attrs({ ...common(c, v), type: 'file', accept })}>`;
    return wrap(c, v, html`${labelHtml(c, v)}${input}${errorHtml(v)}`);
  },
  Signature(c, v) {
    const affirm = v.affirmation
      ? html`<p class="sp-affirmation" id="${controlId(v)}-affirmation">${v.affirmation}</p>`
      : '';
    // The page gives the hint in its language.
    const hint = html`<p class="sp-hint" id="${controlId(v)}-hint">${str(c, 'hint', 'Type your full name to sign.')}</p>`;
    const described = [
      v.error ? errorId(v) : '',
      affirm ? `${controlId(v)}-affirmation` : '',
      `${controlId(v)}-hint`,
    ];
    const input = html`<input${attrs({ ...common(c, v), type: 'text', autocomplete: 'name', value: asText(v.value).startsWith('data:') ? '' : asText(v.value), 'aria-describedby': described.filter(Boolean).join(' ') })}>`;
    return wrap(c, v, html`${labelHtml(c, v)}${affirm}${hint}${input}${errorHtml(v)}`);
  },
  Hidden: (c, v) =>
    html`<input${attrs({ type: 'hidden', name: str(c, 'field_name'), value: asText(v.value ?? str(c, 'value')) })}>`,
  Heading(c) {
    const level = Math.min(Math.max(num(c, 'level') ?? 2, 1), 6);
    return html`<h${level} class="sp-heading">${sanitized(c)}</h${level}>`;
  },
  Paragraph: (c) => html`<div class="sp-paragraph">${sanitized(c)}</div>`,
  Divider: () => html`<hr class="sp-divider">`,
  Image: (c) =>
    html`<img${attrs({ class: 'sp-image', src: str(c, 'src'), alt: str(c, 'alt'), width: num(c, 'width') })}>`,
  Button(c) {
    const margin = str(c, 'margin');
    const style = [
      /^[\w .%-]{1,40}$/.test(margin) ? `margin:${margin}` : '',
      flag(c, 'full_width') ? 'width:100%' : '',
    ]
      .filter(Boolean)
      .join(';');
    return html`<button${attrs({ type: 'submit', class: 'sp-button', style: style || undefined })}>${str(c, 'text') ? sanitized(c) : 'Submit'}</button>`;
  },
};

function choiceGroup(c: Component, v: FieldView, kind: 'radio' | 'checkbox'): SafeHtml {
  const chosen = new Set(
    Array.isArray(v.value) ? v.value.map(String) : v.value === undefined ? [] : [String(v.value)],
  );
  const items = optionsOf(c).map((o, i) => {
    const id = `${controlId(v)}-${i}`;
    const input = html`<input${attrs({ type: kind, name: str(c, 'field_name'), id, value: o.value, checked: chosen.has(o.value), required: kind === 'radio' && flag(c, 'required') })}>`;
    return html`<div class="sp-option">${input}<label for="${id}">${o.label}</label></div>`;
  });
  const described = v.error ? html` aria-describedby="${errorId(v)}"` : '';
  return wrap(
    c,
    v,
    html`<fieldset id="${controlId(v)}"${described}>${labelHtml(c, v, 'legend')}${items}</fieldset>${errorHtml(v)}`,
  );
}
