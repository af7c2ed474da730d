/**
 * Personalisation of marketing mail: a mailing's subject and bodies are Handlebars templates rendered once per
 * subscriber with `first_name`, `last_name`, `email` and every custom field by its name (also under `custom_fields`).
 * Compiled templates are kept in a small bounded cache, since one campaign renders the same template for every
 * subscriber of its audience.
 */
import type { Queryable } from '../../db/types.ts';
import { AppError } from '../../errors/app-error.ts';
import { fieldValuesOf } from '../subscribers/rows.service.ts';
import { findSubscriberNames } from './mailings.repository.ts';
import type HandlebarsModule from 'handlebars';
import { handlebars } from '../../on-first-use.ts';

/** The values one subscriber's mail is rendered with. */
export interface Personalisation {
  email: string;
  first_name: string | null;
  last_name: string | null;
  custom: Record<string, string>;
}

/** A template that does not compile or cannot be rendered. */
export class TemplateError extends AppError {
  constructor(message: string, cause?: unknown) {
    super('marketing.template_invalid', message, { cause });
    this.name = 'TemplateError';
  }
}

/** Values used when a template is rendered for no one (checks, and previews to an address that is not a subscriber). */
export const EMPTY_PERSONALISATION: Personalisation = Object.freeze({
  email: '',
  first_name: null,
  last_name: null,
  custom: {},
});

let environment: typeof HandlebarsModule | undefined;

/** A private Handlebars environment, made on first use: helpers registered elsewhere do not leak into marketing mail. */
function hbs(): typeof HandlebarsModule {
  if (environment) return environment;
  environment = handlebars().create();
  // A template must not write to the server's output once per subscriber.
  environment.unregisterHelper('log');
  return environment;
}

/** How many compiled templates are kept, and their total size in characters. */
const CACHE_ENTRIES = 64;
const CACHE_CHARS = 8_000_000;

type Compiled = { render: HandlebarsTemplateDelegate } | { error: TemplateError };
/** Compiled forms of a template source, one a mode (HTML-escaping or not). */
type Entry = { html?: Compiled; text?: Compiled };
const cache = new Map<string, Entry>();
let cachedChars = 0;

/** Renders a mailing template for one subscriber: Handlebars, HTML-escaped when html is true. Unknown names render empty. */
export function personalise(template: string, p: Personalisation, opts: { html: boolean }): string {
  const compiled = compiledOf(template, opts.html);
  if ('error' in compiled) throw compiled.error;
  try {
    return compiled.render(contextOf(p));
  } catch (err) {
    throw new TemplateError(`the template could not be rendered: ${oneLine(err)}`, err);
  }
}

/** The error message of a template that does not compile (or fails for every subscriber), or null when it is usable. */
export function checkTemplate(template: string): string | null {
  try {
    personalise(template, EMPTY_PERSONALISATION, { html: true });
    return null;
  } catch (err) {
    if (err instanceof TemplateError) return err.message;
    throw err;
  }
}

/** Loads one subscriber's personalisation values (name, email and custom fields by their names). */
export async function loadPersonalisation(
  db: Queryable,
  subscriberId: number,
): Promise<Personalisation | undefined> {
  const row = await findSubscriberNames(db, subscriberId);
  if (!row) return undefined;
  const custom = Object.create(null) as Record<string, string>;
  for (const f of await fieldValuesOf(db, subscriberId)) custom[f.name] = f.value;
  return { email: row.email, first_name: row.first_name, last_name: row.last_name, custom };
}

/**
 * The Handlebars context: custom fields by their names (and lower-cased names), under `custom_fields` too, and the
 * subscriber's own fields, which win over custom fields of the same name.
 */
function contextOf(p: Personalisation): Record<string, unknown> {
  const custom = Object.create(null) as Record<string, string>;
  for (const [name, value] of Object.entries(p.custom)) custom[name] = value;
  for (const [name, value] of Object.entries(p.custom)) {
    const lower = name.toLowerCase();
    if (!(lower in custom)) custom[lower] = value;
  }
  return {
    ...custom,
    custom_fields: custom,
    email: p.email,
    first_name: p.first_name ?? '',
    last_name: p.last_name ?? '',
  };
}

/** The compiled template (or its compile error) from the cache, compiling on a miss. */
function compiledOf(template: string, html: boolean): Compiled {
  const mode = html ? 'html' : 'text';
  let entry = cache.get(template);
  if (entry) {
    // Most recently used last.
    cache.delete(template);
    cache.set(template, entry);
  } else {
    entry = {};
    remember(template, entry);
  }
  return (entry[mode] ??= compile(template, html));
}

function compile(template: string, html: boolean): Compiled {
  try {
    const render = hbs().compile(template, { noEscape: !html, strict: false });
    // Handlebars compiles on first use: render once for no one so syntax errors surface here, once per template.
    render(contextOf(EMPTY_PERSONALISATION));
    return { render };
  } catch (err) {
    return { error: new TemplateError(`not a valid template: ${oneLine(err)}`, err) };
  }
}

/** Adds to the cache, dropping the least recently used entries beyond the bounds. */
function remember(template: string, entry: Entry): void {
  if (template.length > CACHE_CHARS) return;
  cache.set(template, entry);
  cachedChars += template.length;
  for (const oldest of cache.keys()) {
    if (cache.size <= CACHE_ENTRIES && cachedChars <= CACHE_CHARS) break;
    cache.delete(oldest);
    cachedChars -= oldest.length;
  }
}

/** An error message on one line, without the caret line Handlebars adds under a parse error. */
function oneLine(err: unknown): string {
  const lines = (err instanceof Error ? err.message : String(err)).split('\n');
  return lines
    .filter((l) => !/^-*\^$/.test(l.trim()))
    .join(' ')
    .slice(0, 300);
}
