/**
 * Server-side HTML of each component type for the hosted page: native controls that work with JavaScript off, a label
 * (or fieldset legend) for every input, and the field's error message next to it, tied with aria-describedby.
 * Component `text` is HTML already sanitized when the definition was stored; every other value is escaped here.
 */
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

/** Escapes text for an HTML element or a double-quoted attribute. */
export function esc(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const controlId = (v: FieldView) => `sp-${v.index}`;
const errorId = (v: FieldView) => `sp-${v.index}-error`;
const asText = (value: unknown) =>
  typeof value === 'string' || typeof value === 'number' ? String(value) : '';

function attrs(pairs: Record<string, string | number | boolean | undefined>): string {
  return Object.entries(pairs)
    .filter(([, v]) => v !== undefined && v !== false)
    .map(([k, v]) => (v === true ? ` ${k}` : ` ${k}="${esc(String(v))}"`))
    .join('');
}

function labelHtml(c: Component, v: FieldView, tag: 'label' | 'legend' = 'label'): string {
  const text = str(c, 'text') || esc(str(c, 'field_name'));
  const req = flag(c, 'required') ? ' <span class="sp-required" aria-hidden="true">*</span>' : '';
  return tag === 'label'
    ? `<label for="${controlId(v)}">${text}${req}</label>`
    : `<legend>${text}${req}</legend>`;
}

function errorHtml(v: FieldView): string {
  return v.error ? `<p class="sp-error" id="${errorId(v)}">${esc(v.error)}</p>` : '';
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

function wrap(c: Component, v: FieldView, inner: string): string {
  return `<div class="sp-field sp-${c.type}${v.error ? ' sp-has-error' : ''}">${inner}</div>`;
}

/** Renderers by component type. */
export const RENDER: Record<string, (c: Component, v: FieldView) => string> = {
  TextInput(c, v) {
    const mask = maskInput((str(c, 'input_mask', 'Any') as Mask) || 'Any');
    const input = `<input${attrs({ ...common(c, v), ...mask, value: asText(v.value), placeholder: str(c, 'placeholder') || undefined, maxlength: num(c, 'max_length') })}>`;
    return wrap(c, v, labelHtml(c, v) + input + errorHtml(v));
  },
  TextArea(c, v) {
    const area = `<textarea${attrs({ ...common(c, v), rows: num(c, 'rows') ?? 4, placeholder: str(c, 'placeholder') || undefined, maxlength: num(c, 'max_length') })}>${esc(asText(v.value))}</textarea>`;
    return wrap(c, v, labelHtml(c, v) + area + errorHtml(v));
  },
  Select(c, v) {
    const chosen = asText(v.value);
    const opts = [`<option value="">${esc(str(c, 'placeholder') || 'Choose…')}</option>`]
      .concat(
        optionsOf(c).map(
          (o) => `<option${attrs({ value: o.value, selected: o.value === chosen })}>${esc(o.label)}</option>`,
        ),
      )
      .join('');
    return wrap(c, v, labelHtml(c, v) + `<select${attrs(common(c, v))}>${opts}</select>` + errorHtml(v));
  },
  RadioGroup: (c, v) => choiceGroup(c, v, 'radio'),
  CheckboxGroup: (c, v) => choiceGroup(c, v, 'checkbox'),
  Checkbox(c, v) {
    const box = `<input${attrs({ ...common(c, v), type: 'checkbox', value: 'true', checked: v.value === true || v.value === 'true' || v.value === 'on' })}>`;
    return wrap(c, v, `<div class="sp-check">${box}${labelHtml(c, v)}</div>` + errorHtml(v));
  },
  DateInput(c, v) {
    const input = `<input${attrs({ ...common(c, v), type: 'date', value: asText(v.value), min: str(c, 'min') || undefined, max: str(c, 'max') || undefined })}>`;
    return wrap(c, v, labelHtml(c, v) + input + errorHtml(v));
  },
  NumberInput(c, v) {
    const step = flag(c, 'integer') ? 1 : (num(c, 'step') ?? 'any');
    const input = `<input${attrs({ ...common(c, v), type: 'number', value: asText(v.value), min: num(c, 'min'), max: num(c, 'max'), step })}>`;
    return wrap(c, v, labelHtml(c, v) + input + errorHtml(v));
  },
  FileUpload(c, v) {
    const accept = Array.isArray(c.properties.accept)
      ? (c.properties.accept as string[]).join(',')
      : undefined;
    return wrap(
      c,
      v,
      labelHtml(c, v) + `<input${attrs({ ...common(c, v), type: 'file', accept })}>` + errorHtml(v),
    );
  },
  Signature(c, v) {
    const affirm = v.affirmation
      ? `<p class="sp-affirmation" id="${controlId(v)}-affirmation">${esc(v.affirmation)}</p>`
      : '';
    const hint = `<p class="sp-hint" id="${controlId(v)}-hint">Type your full name to sign.</p>`;
    const described = [
      v.error ? errorId(v) : '',
      affirm ? `${controlId(v)}-affirmation` : '',
      `${controlId(v)}-hint`,
    ];
    const input = `<input${attrs({ ...common(c, v), type: 'text', autocomplete: 'name', value: asText(v.value).startsWith('data:') ? '' : asText(v.value), 'aria-describedby': described.filter(Boolean).join(' ') })}>`;
    return wrap(c, v, labelHtml(c, v) + affirm + hint + input + errorHtml(v));
  },
  Hidden: (c, v) =>
    `<input${attrs({ type: 'hidden', name: str(c, 'field_name'), value: asText(v.value ?? str(c, 'value')) })}>`,
  Heading(c) {
    const level = Math.min(Math.max(num(c, 'level') ?? 2, 1), 6);
    return `<h${level} class="sp-heading">${str(c, 'text')}</h${level}>`;
  },
  Paragraph: (c) => `<div class="sp-paragraph">${str(c, 'text')}</div>`,
  Divider: () => '<hr class="sp-divider">',
  Image: (c) =>
    `<img${attrs({ class: 'sp-image', src: str(c, 'src'), alt: str(c, 'alt'), width: num(c, 'width') })}>`,
  Button(c) {
    const margin = str(c, 'margin');
    const style = [
      /^[\w .%-]{1,40}$/.test(margin) ? `margin:${margin}` : '',
      flag(c, 'full_width') ? 'width:100%' : '',
    ]
      .filter(Boolean)
      .join(';');
    return `<button${attrs({ type: 'submit', class: 'sp-button', style: style || undefined })}>${str(c, 'text') || 'Submit'}</button>`;
  },
};

function choiceGroup(c: Component, v: FieldView, kind: 'radio' | 'checkbox'): string {
  const chosen = new Set(
    Array.isArray(v.value) ? v.value.map(String) : v.value === undefined ? [] : [String(v.value)],
  );
  const items = optionsOf(c)
    .map((o, i) => {
      const id = `${controlId(v)}-${i}`;
      const input = `<input${attrs({ type: kind, name: str(c, 'field_name'), id, value: o.value, checked: chosen.has(o.value), required: kind === 'radio' && flag(c, 'required') })}>`;
      return `<div class="sp-option">${input}<label for="${id}">${esc(o.label)}</label></div>`;
    })
    .join('');
  const described = v.error ? ` aria-describedby="${errorId(v)}"` : '';
  return wrap(
    c,
    v,
    `<fieldset id="${controlId(v)}"${described}>${labelHtml(c, v, 'legend')}${items}</fieldset>` +
      errorHtml(v),
  );
}
