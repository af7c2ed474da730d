/**
 * The form builder's working state as it travels in the builder's HTML form: every component's type, id and
 * properties as named fields (`c3.p.text`), so the builder works with JavaScript off. This module reads that state
 * from a post, applies one editing step (add, move, delete, replace from JSON) and gives new components defaults
 * that pass the definition rules. Checking a definition is left to the forms service.
 */
import { randomUUID } from 'node:crypto';
import { COMPONENTS, type PropSpec } from '../../forms/components/components.ts';
import { ownValue } from '../../own.ts';
import type { Component } from '../../forms/components/component-types.ts';
import { Form, OneOrMany, Repeated } from '../action.schemas.ts';

/** The builder's state: the form's title, description and settings and its components in order. */
export interface BuilderState {
  title: string;
  description: string;
  /** Comma-separated addresses notified of each response (the API's `recipient`). */
  recipient: string;
  /** Whether a response is signed and its evidence recorded (the API's `signable`). */
  signable: boolean;
  /** The sentence the signer affirms; empty for the default one (the API's `signature_confirmation_label`). */
  affirmation: string;
  components: Component[];
  /** Why a posted component was left out (a type that is not a component type), worded as the API words it. */
  error?: string;
}

/** A posted console form. */
export type Posted = Record<string, string | string[] | undefined>;

/**
 * The builder's post: the form's own fields, the step buttons and each component's fields `c<i>.…`. Any of them may
 * repeat (a property's checkbox follows a hidden fallback of the same name), and the last one counts.
 */
export const BuilderForm = Form(
  {
    title: Repeated(),
    description: Repeated(),
    recipient: Repeated(),
    signable: Repeated(),
    affirmation: Repeated(),
    add_label: Repeated(),
    count: Repeated(),
    op: Repeated(),
    add_type: Repeated(),
    json: Repeated(),
  },
  { patternProperties: { '^c[0-9]+\\.': OneOrMany() } },
);

/** A tiny transparent PNG, the default picture of a new Image component. */
const BLANK_IMAGE =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** Human names of the component types, in the order the builder offers them. */
export const TYPE_LABELS: Record<string, string> = {
  TextInput: 'Short text',
  TextArea: 'Long text',
  Select: 'Drop-down list',
  RadioGroup: 'Single choice (radio buttons)',
  CheckboxGroup: 'Multiple choice (checkboxes)',
  Checkbox: 'Single checkbox',
  DateInput: 'Date',
  NumberInput: 'Number',
  FileUpload: 'File upload',
  Signature: 'Signature',
  Hidden: 'Hidden value',
  Heading: 'Heading',
  Paragraph: 'Paragraph',
  Divider: 'Divider',
  Image: 'Image',
  Button: 'Submit button',
};

/** Human names of properties. */
export const PROP_LABELS: Record<string, string> = {
  field_name: 'Field name',
  text: 'Label',
  required: 'Required',
  placeholder: 'Placeholder',
  max_length: 'Longest answer (characters)',
  input_mask: 'Input mask',
  rows: 'Visible rows',
  options: 'Options (one a line; "Label|value" to store another value)',
  min: 'Smallest',
  max: 'Largest',
  step: 'Step',
  integer: 'Whole numbers only',
  accept: 'Accepted file types (comma-separated)',
  max_size_bytes: 'Largest file (bytes)',
  value: 'Value',
  level: 'Heading level (1-6)',
  src: 'Picture URL (https)',
  alt: 'Text alternative',
  width: 'Width (pixels)',
  margin: 'Margin (CSS, e.g. 16px 0)',
  full_width: 'Full width',
};

const one = (v: string | string[] | undefined): string =>
  Array.isArray(v) ? (v[v.length - 1] ?? '') : (v ?? '');

/** A property's posted text as the value the definition stores (text that is not a number stays text, so the check names it). */
function propValue(spec: PropSpec, text: string, present: boolean): unknown {
  if (spec.kind === 'boolean') return present && text !== '' ? true : undefined;
  const t = text.trim();
  if (t === '') return undefined;
  switch (spec.kind) {
    case 'integer':
    case 'number':
      return Number.isNaN(Number(t)) ? t : Number(t);
    case 'options':
      return t
        .split(/\r?\n/)
        .map((l) => l.trim())
        .filter(Boolean)
        .map((l) =>
          l.includes('|')
            ? { label: l.slice(0, l.indexOf('|')).trim(), value: l.slice(l.indexOf('|') + 1).trim() }
            : l,
        );
    case 'strings':
      return t
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    default:
      return text;
  }
}

/** A stored property as the text of its builder control. */
export function propText(spec: PropSpec, value: unknown): string {
  if (value === undefined || value === null) return '';
  if (spec.kind === 'options' && Array.isArray(value))
    return value
      .map((o) =>
        typeof o === 'string'
          ? o
          : `${String((o as { label: unknown }).label)}|${String((o as { value: unknown }).value)}`,
      )
      .join('\n');
  if (spec.kind === 'strings' && Array.isArray(value)) return value.join(', ');
  return typeof value === 'object' ? JSON.stringify(value) : String(value as string | number | boolean);
}

/** Reads the builder state from a post. */
export function readState(form: Posted): BuilderState {
  const count = Math.min(Number.parseInt(one(form.count), 10) || 0, 500);
  const components: Component[] = [];
  let error: string | undefined;
  for (let i = 0; i < count; i++) {
    const type = one(form[`c${i}.type`]);
    const spec = ownValue(COMPONENTS, type);
    if (!spec) {
      error ??= `${quoted(one(form[`c${i}.p.text`]) || `Component ${i + 1}`)}: choose a type`;
      continue;
    }
    let extra: Record<string, unknown> = {};
    try {
      extra = JSON.parse(one(form[`c${i}.extra`]) || '{}') as Record<string, unknown>;
    } catch {
      extra = {};
    }
    const properties: Record<string, unknown> = { ...extra };
    for (const [name, p] of Object.entries(spec.props)) {
      const key = `c${i}.p.${name}`;
      const value = propValue(p, one(form[key]), form[key] !== undefined);
      if (value !== undefined) properties[name] = value;
    }
    components.push({ type, id: one(form[`c${i}.id`]) || newId(), properties });
  }
  return {
    title: one(form.title).trim(),
    description: one(form.description),
    recipient: one(form.recipient).trim(),
    signable: one(form.signable) === 'true',
    affirmation: one(form.affirmation).trim(),
    components,
    error,
  };
}

/** A label as the builder's messages quote it. */
export function quoted(label: string): string {
  return `\u201c${label.trim()}\u201d`;
}

/** A label as a field name: lower-case ASCII letters, digits and underscores (empty when nothing is left). */
export function slugOf(label: string): string {
  return label
    .replace(/<[^>]*>/g, ' ')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 60)
    .replace(/_+$/, '');
}

/** Properties of a component that the builder has no control for, kept as they were. */
export function extraProps(c: Component): Record<string, unknown> {
  const known = ownValue(COMPONENTS, c.type)?.props ?? {};
  return Object.fromEntries(Object.entries(c.properties).filter(([k]) => !(k in known)));
}

function newId(): string {
  return `c-${randomUUID().slice(0, 8)}`;
}

/**
 * A new component of a type with its label, defaults that pass the definition rules and a field name made from the
 * label (or the type when the label has no letters), numbered when the form already uses it.
 */
export function newComponent(type: string, existing: Component[], label = ''): Component {
  const spec = ownValue(COMPONENTS, type);
  if (!spec) throw new Error(`unknown component type ${type}`);
  const properties: Record<string, unknown> = {};
  label = label.trim();
  if ('field_name' in spec.props) {
    const used = new Set(existing.map((c) => c.properties.field_name));
    const slug = slugOf(label);
    const typeName = type.replace(/[A-Z]/g, (m, i: number) => (i ? '_' : '') + m.toLowerCase());
    const candidate = (n: number) => (slug ? (n === 1 ? slug : `${slug}_${n}`) : `${typeName}_${n}`);
    let n = 1;
    while (used.has(candidate(n))) n++;
    properties.field_name = candidate(n);
  }
  if ('text' in spec.props && (label || type !== 'Button'))
    properties.text = label || (type === 'Paragraph' ? 'Some text' : (TYPE_LABELS[type] ?? type));
  if ('options' in spec.props) properties.options = ['Option 1', 'Option 2'];
  if (type === 'Image') Object.assign(properties, { src: BLANK_IMAGE, alt: label || 'Picture' });
  return { type, id: newId(), properties };
}

/** One editing step of the builder. */
export type Step =
  | { op: 'add'; type: string; label: string }
  | { op: 'move'; from: number; to: number }
  | { op: 'delete'; index: number }
  | { op: 'json'; text: string };

/** Reads the step a post asks for from its `op` button (and `add_type`, `json`); undefined for save or an unknown op. */
export function readStep(form: Posted): Step | undefined {
  const op = one(form.op);
  let m: RegExpExecArray | null;
  if (op === 'add') return { op: 'add', type: one(form.add_type), label: one(form.add_label) };
  if (op === 'json') return { op: 'json', text: one(form.json) };
  if ((m = /^(up|down):(\d+)$/.exec(op)))
    return { op: 'move', from: Number(m[2]), to: Number(m[2]) + (m[1] === 'up' ? -1 : 1) };
  if ((m = /^moveto:(\d+):(\d+)$/.exec(op))) return { op: 'move', from: Number(m[1]), to: Number(m[2]) };
  if ((m = /^delete:(\d+)$/.exec(op))) return { op: 'delete', index: Number(m[1]) };
  return undefined;
}

/** Applies a step; returns the new components, or an error message and the components unchanged. */
export function applyStep(components: Component[], step: Step): { components: Component[]; error?: string } {
  const list = [...components];
  switch (step.op) {
    case 'add': {
      const spec = ownValue(COMPONENTS, step.type);
      if (!spec) return { components, error: `choose a component type to add` };
      if ('field_name' in spec.props && !step.label.trim())
        return { components, error: 'give the new component a label first' };
      list.push(newComponent(step.type, list, step.label));
      return { components: list };
    }
    case 'move': {
      if (step.from < 0 || step.from >= list.length || step.to < 0 || step.to >= list.length)
        return { components };
      const [moved] = list.splice(step.from, 1);
      list.splice(step.to, 0, moved!);
      return { components: list };
    }
    case 'delete':
      list.splice(step.index, 1);
      return { components: list };
    case 'json':
      try {
        const parsed = JSON.parse(step.text) as { body?: unknown };
        if (!parsed || !Array.isArray(parsed.body))
          return { components, error: 'the JSON must be an object with a "body" array' };
        return { components: parsed.body as Component[] };
      } catch (err) {
        return { components, error: `the JSON could not be read: ${(err as Error).message}` };
      }
  }
}
