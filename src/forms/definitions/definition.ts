/** Validation of a form definition against the component registry, with component HTML sanitized to an allowlist. */
import type SanitizeHtml from 'sanitize-html';
import { AppError } from '../../errors/app-error.ts';
import { COMPONENTS, isField, type PropSpec } from '../components/components.ts';
import type { Component } from '../components/component-types.ts';
import { MASKS } from '../components/masks.ts';
import { isIsoDate } from '../components/masks.ts';
import { parseSettings } from './settings.ts';
import { isPrototypeName, ownValue } from '../../own.ts';
import { onFirstUse } from '../../on-first-use.ts';

/** A checked definition: the JSON to store and its components. */
export interface Definition {
  json: Record<string, unknown> & { body: Component[] };
  components: Component[];
}

/** Field names starting with this are the hosted page's own (honeypot, token) and may not be used by a form. */
export const RESERVED_PREFIX = '_sp_';

/** The honeypot field: hidden from people, filled in by naive bots. */
export const HONEYPOT_FIELD = `${RESERVED_PREFIX}website`;
/** The per-render token field, used as the submission's idempotency key. */
export const TOKEN_FIELD = `${RESERVED_PREFIX}token`;
/** The bot defence's signed check token. */
export const CHECK_FIELD = `${RESERVED_PREFIX}check`;
/** The proof of work's solution, filled in by the solver script. */
export const POW_FIELD = `${RESERVED_PREFIX}pow`;

/** The sentence a signer affirms when a signable form sets no `signature_confirmation_label`. */
export const DEFAULT_AFFIRMATION =
  'By typing my name, I sign this form electronically and agree that my electronic signature is the legal equivalent of my handwritten signature.';

/** The sentence the signer of a signable form affirms, as the page shows it and the evidence records it; null when not signable. */
export function affirmationOf(form: {
  signable: number;
  signature_confirmation_label: string | null;
}): string | null {
  if (form.signable !== 1) return null;
  return form.signature_confirmation_label?.trim() || DEFAULT_AFFIRMATION;
}

const sanitizer = onFirstUse<typeof SanitizeHtml>('sanitize-html');

/** The sanitizer's options, made on first use (the link transform is the package's own). */
const sanitizeOptions = (): SanitizeHtml.IOptions => ({
  allowedTags: [
    'b',
    'strong',
    'i',
    'em',
    'u',
    's',
    'small',
    'sub',
    'sup',
    'br',
    'span',
    'p',
    'a',
    'ul',
    'ol',
    'li',
    'code',
  ],
  allowedAttributes: { a: ['href', 'title', 'target', 'rel'], span: ['class'], p: ['class'] },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  transformTags: { a: sanitizer().simpleTransform('a', { rel: 'noopener noreferrer' }) },
});
let options: SanitizeHtml.IOptions | undefined;

/** Sanitizes component HTML. */
export function sanitizeText(html: string): string {
  return sanitizer()(html, (options ??= sanitizeOptions()));
}

const invalid = (message: string) => new AppError('form.invalid_definition', message);

/** Checks `form_json` and returns it with every `html` property sanitized; throws form.invalid_definition naming the component. */
export function parseDefinition(formJson: unknown): Definition {
  if (
    !formJson ||
    typeof formJson !== 'object' ||
    Array.isArray(formJson) ||
    !Array.isArray((formJson as { body?: unknown }).body)
  )
    throw invalid('form_json must be an object with a "body" array of components');
  const body = (formJson as { body: unknown[] }).body;
  const ids = new Set<string>();
  const names = new Set<string>();
  const components = body.map((raw, index) => {
    const c = checkComponent(raw, index);
    const where = `form_json.body[${index}] (${c.type})`;
    if (ids.has(c.id)) throw invalid(`${where}: duplicate id "${c.id}"`);
    ids.add(c.id);
    if (isField(c)) {
      const name = c.properties.field_name as string;
      if (names.has(name)) throw invalid(`${where}: duplicate field_name "${name}"`);
      names.add(name);
    }
    return c;
  });
  const settings = parseSettings((formJson as { settings?: unknown }).settings);
  const json: Definition['json'] = { ...(formJson as Record<string, unknown>), body: components };
  if (Object.keys(settings).length) json.settings = settings;
  else delete json.settings;
  return { json, components };
}

function checkComponent(raw: unknown, index: number): Component {
  const obj =
    raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : undefined;
  const type = typeof obj?.type === 'string' ? obj.type : String(obj?.type ?? 'missing');
  const where = `form_json.body[${index}] (${type})`;
  if (!obj)
    throw invalid(`form_json.body[${index}]: a component must be an object with type, id and properties`);
  const spec = ownValue(COMPONENTS, type);
  if (!spec)
    throw invalid(
      `${where}: unknown component type "${type}"; known types: ${Object.keys(COMPONENTS).join(', ')}`,
    );
  if (typeof obj.id !== 'string' || obj.id.trim() === '')
    throw invalid(`${where}: id must be a non-empty string`);
  const props = obj.properties ?? {};
  if (typeof props !== 'object' || Array.isArray(props))
    throw invalid(`${where}: properties must be an object`);
  const properties: Record<string, unknown> = { ...(props as Record<string, unknown>) };
  for (const [name, p] of Object.entries(spec.props)) {
    const value = properties[name];
    if (value === undefined || value === null) {
      if (p.required) throw invalid(`${where}: properties.${name} is required`);
      delete properties[name];
      continue;
    }
    const problem = propProblem(p, value);
    if (problem) throw invalid(`${where}: properties.${name} ${problem}`);
    if (p.kind === 'html') properties[name] = sanitizeText(value as string);
  }
  const field = properties.field_name;
  if (
    typeof field === 'string' &&
    (field.trim() === '' || field.length > 100 || field.startsWith(RESERVED_PREFIX))
  )
    throw invalid(
      `${where}: properties.field_name must be 1 to 100 characters and not start with "${RESERVED_PREFIX}"`,
    );
  if (typeof field === 'string' && isPrototypeName(field))
    throw invalid(`${where}: properties.field_name "${field}" is a reserved name`);
  if (isPrototypeName(obj.id)) throw invalid(`${where}: id "${obj.id}" is a reserved name`);
  return { ...obj, type, id: obj.id, properties };
}

function propProblem(p: PropSpec, v: unknown): string | null {
  switch (p.kind) {
    case 'string':
    case 'html':
      return typeof v === 'string' ? null : 'must be a string';
    case 'boolean':
      return typeof v === 'boolean' ? null : 'must be a boolean';
    case 'integer':
      return Number.isInteger(v) ? null : 'must be an integer';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v) ? null : 'must be a number';
    case 'date':
      return typeof v === 'string' && isIsoDate(v) ? null : 'must be a date written YYYY-MM-DD';
    case 'mask':
      return typeof v === 'string' && (MASKS as readonly string[]).includes(v)
        ? null
        : `must be one of ${MASKS.join(', ')}`;
    case 'strings':
      return Array.isArray(v) && v.every((s) => typeof s === 'string') ? null : 'must be an array of strings';
    case 'url':
      return typeof v === 'string' &&
        (/^https:\/\/[^\s"<>]+$/i.test(v) ||
          /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=]+$/.test(v))
        ? null
        : 'must be an https URL or a data:image URL';
    case 'options': {
      const ok =
        Array.isArray(v) &&
        v.length > 0 &&
        v.every(
          (o) =>
            typeof o === 'string' ||
            (o &&
              typeof o === 'object' &&
              typeof (o as { label?: unknown }).label === 'string' &&
              typeof (o as { value?: unknown }).value === 'string'),
        );
      return ok ? null : 'must be a non-empty array of strings or {label, value} objects';
    }
  }
}

/** The components of a stored definition (stored JSON was checked on the way in). */
export function componentsOf(formJsonText: string): Component[] {
  return (JSON.parse(formJsonText) as { body: Component[] }).body;
}
