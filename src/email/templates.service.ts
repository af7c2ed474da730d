/** Dynamic templates: Handlebars bodies (HTML-escaped by default) stored per account, rendered for templated sends. */
import type { AppContext } from '../context.ts';
import { AppError } from '../errors/app-error.ts';
import { isUniqueViolation } from '../db/errors.ts';
import {
  deleteTemplate,
  findTemplateById,
  findTemplateByName,
  insertTemplate,
  listTemplates,
  updateTemplate,
  type TemplateRow,
} from './templates.repository.ts';
import { handlebars } from '../on-first-use.ts';
import { documentOf, expandBlocks } from '../mail/blocks/blocks.service.ts';
import type { BlockDocument } from '../mail/blocks/blocks.schemas.ts';
import { textOfHtml } from '../mail/text-part.ts';

/** A template as the API shows it. */
export interface DynamicTemplate {
  id: string;
  name: string;
  body: string;
  /** The block document the body was rendered from, or null. */
  content_blocks: BlockDocument | null;
  api_customer_id: number;
  created_at: string;
  updated_at: string;
}

const MAX_BODY = 1_000_000;

function toTemplate(row: TemplateRow): DynamicTemplate {
  return {
    id: String(row.id),
    name: row.name,
    body: row.body,
    content_blocks: documentOf(row.content_blocks),
    api_customer_id: row.customer_id,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

/** Compiles a template body fully, so a syntax error is reported at upload and not at send. */
function checkBody(body: string): void {
  if (body.length > MAX_BODY)
    throw new AppError('email.template_invalid', `data[body] is larger than ${MAX_BODY} characters`);
  try {
    handlebars().precompile(body);
  } catch (err) {
    throw new AppError(
      'email.template_invalid',
      `data[body] is not a valid Handlebars template: ${(err as Error).message.split('\n')[0]}`,
    );
  }
}

function checkName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 255 || /[\r\n]/.test(trimmed))
    throw new AppError('request.invalid', 'data[name] must be 1 to 255 characters on one line');
  return trimmed;
}

function parseId(id: string): number {
  if (!/^\d{1,15}$/.test(id))
    throw new AppError('email.template_not_found', `no dynamic template with id ${JSON.stringify(id)}`);
  return Number(id);
}

/** A template's fields as a create or change sends them. */
export interface TemplateInput {
  name?: string;
  body?: string;
  /** A block document, rendered into the body through MJML; null drops the stored one. */
  content_blocks?: unknown;
}

/** Lists an account's templates. */
export async function allTemplates(ctx: AppContext, customerId: number): Promise<DynamicTemplate[]> {
  return (await listTemplates(ctx.database.db, customerId)).map(toTemplate);
}

/** Reads one template. */
export async function oneTemplate(ctx: AppContext, customerId: number, id: string): Promise<DynamicTemplate> {
  const row = await findTemplateById(ctx.database.db, customerId, parseId(id));
  if (!row) throw new AppError('email.template_not_found', `no dynamic template with id ${id}`);
  return toTemplate(row);
}

/** A change to a template as answered: the template, a sentence saying what happened, and the parameters that were given. */
export type TemplateChange = DynamicTemplate & { message: string; params: { name?: string; body?: string } };

/** Creates a template; names are unique per account. */
export async function createTemplate(
  ctx: AppContext,
  customerId: number,
  sent: TemplateInput,
): Promise<TemplateChange> {
  const { input, stored } = await expandBlocks(sent, 'data', 'body');
  if (input.name === undefined) throw new AppError('request.invalid', 'data[name] is required');
  if (input.body === undefined) throw new AppError('request.invalid', 'data[body] is required');
  const name = checkName(input.name);
  checkBody(input.body);
  try {
    const template = toTemplate(
      await insertTemplate(ctx.database.db, customerId, name, input.body, Date.now(), stored ?? null),
    );
    return { ...template, message: `Template ${template.name} created!`, params: { name, body: input.body } };
  } catch (err) {
    if (isUniqueViolation(err))
      throw new AppError(
        'email.template_exists',
        `a dynamic template named ${JSON.stringify(name)} already exists`,
      );
    throw err;
  }
}

/** Updates a template's name, body, or both. */
export async function changeTemplate(
  ctx: AppContext,
  customerId: number,
  id: string,
  sent: TemplateInput,
): Promise<TemplateChange> {
  const { input, stored } = await expandBlocks(sent, 'data', 'body');
  const changes: { name?: string; body?: string; content_blocks?: string | null } = {};
  if (stored !== undefined) changes.content_blocks = stored;
  if (input.name !== undefined) changes.name = checkName(input.name);
  if (input.body !== undefined) {
    checkBody(input.body);
    changes.body = input.body;
  }
  if (changes.name === undefined && changes.body === undefined)
    throw new AppError('request.invalid', 'give data[name], data[body] or both');
  try {
    const row = await updateTemplate(ctx.database.db, customerId, parseId(id), changes, Date.now());
    if (!row) throw new AppError('email.template_not_found', `no dynamic template with id ${id}`);
    const template = toTemplate(row);
    return {
      ...template,
      message: `Template ${template.name} updated!`,
      params: { name: changes.name, body: changes.body },
    };
  } catch (err) {
    if (isUniqueViolation(err))
      throw new AppError(
        'email.template_exists',
        `a dynamic template named ${JSON.stringify(changes.name)} already exists`,
      );
    throw err;
  }
}

/** Deletes a template. */
export async function removeTemplate(
  ctx: AppContext,
  customerId: number,
  id: string,
): Promise<{ message: string; params: { id: string } }> {
  if (!(await deleteTemplate(ctx.database.db, customerId, parseId(id))))
    throw new AppError('email.template_not_found', `no dynamic template with id ${id}`);
  return { message: 'Template deleted successfully', params: { id } };
}

/** Parses `template_values`: a string holding a JSON object (absent means no values). */
export function parseTemplateValues(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new AppError(
      'email.template_values_invalid',
      `data.template_values is not valid JSON: ${(err as Error).message}`,
    );
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new AppError('email.template_values_invalid', 'data.template_values must be a JSON object');
  return parsed as Record<string, unknown>;
}

/**
 * Renders the named template (and the subject, which may hold placeholders too) with the values, and the text part
 * made from the rendered HTML (a template has HTML only; mail with a text part reads better and scores better).
 */
export async function renderTemplate(
  ctx: AppContext,
  customerId: number,
  name: string,
  valuesText: string | undefined,
  subject: string,
): Promise<{ html: string; text: string; subject: string }> {
  const row = await findTemplateByName(ctx.database.db, customerId, name);
  if (!row)
    throw new AppError('email.template_not_found', `no dynamic template named ${JSON.stringify(name)}`);
  const values = parseTemplateValues(valuesText);
  try {
    const Handlebars = handlebars();
    const html = Handlebars.compile(row.body, { strict: false })(values);
    return {
      html,
      text: textOfHtml(html),
      subject: Handlebars.compile(subject, { noEscape: true })(values),
    };
  } catch (err) {
    throw new AppError(
      'email.template_invalid',
      `template ${JSON.stringify(name)} could not be rendered: ${(err as Error).message.split('\n')[0]}`,
    );
  }
}
