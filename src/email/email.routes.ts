/** Routes of the transactional email surface, at /v1/email/, /v1/<api_username>/ and bare /v1/. */
import { recipientCost } from '../http/rate-limit.ts';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { TypedApp } from '../http/typed.ts';
import type { AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { BulkBody, BulkResponse, Receipt, SendBody, SendResponse, TemplatedBody } from './email.schemas.ts';
import { errorResponses } from '../mail/error-body.ts';
import { EMAIL_PREFIXES } from '../mail/prefixes.ts';
import { sendBulk, sendMessage, sendTemplated } from './email.service.ts';
import { getReceipt } from './receipts.service.ts';
import {
  allTemplates,
  changeTemplate,
  createTemplate,
  oneTemplate,
  removeTemplate,
  type TemplateInput,
} from './templates.service.ts';
import { BlockDocumentAnswer } from '../mail/blocks/blocks.schemas.ts';

/** How a template is written from a block document. */
const BLOCKS_NOTE =
  'Instead of `data[body]`, a template may be sent as `data[content_blocks]`: a block document (JSON; its schema and an example are those of `content_blocks` of campaign mailings) that the server renders through MJML into the body. Sending a body alone drops the stored document.';

const Template = Type.Object({
  id: Type.String(),
  name: Type.String(),
  body: Type.String(),
  content_blocks: BlockDocumentAnswer,
  api_customer_id: Type.Integer(),
  created_at: Type.String(),
  updated_at: Type.String(),
});
/** Create and update answers: the template plus `message` and the `params` that were given. */
const TemplateChange = Type.Object({
  ...Template.properties,
  message: Type.String({ description: 'For example `Template welcome created!`' }),
  params: Type.Object({ name: Type.Optional(Type.String()), body: Type.Optional(Type.String()) }),
});
const IdParam = Type.Object({ id: Type.String() }, { additionalProperties: true });
const errors = errorResponses(400, 401, 403, 404, 422, 429);
const idempotencyKey = (req: FastifyRequest) => {
  const v = req.headers['idempotency-key'];
  return typeof v === 'string' && v.trim() ? v.trim() : undefined;
};

/**
 * Reads the fields `data[name]` (text), `data[body]` (a file part or a text field) and `data[content_blocks]` (a block
 * document: an object in a JSON body, JSON text in a form) of a template upload.
 */
async function templateParts(req: FastifyRequest): Promise<TemplateInput> {
  if (!req.isMultipart()) {
    const b = (req.body ?? {}) as Record<string, unknown>;
    const data = (b.data ?? {}) as Record<string, unknown>;
    const value = (k: string) => (k in data ? data[k] : b[`data[${k}]`]);
    const text = (k: string) => (typeof value(k) === 'string' ? (value(k) as string) : undefined);
    return { name: text('name'), body: text('body'), content_blocks: blocksValue(value('content_blocks')) };
  }
  const out: TemplateInput = {};
  for await (const part of req.parts()) {
    const value = part.type === 'file' ? (await part.toBuffer()).toString('utf8') : String(part.value ?? '');
    if (part.fieldname === 'data[name]') out.name = value;
    else if (part.fieldname === 'data[body]') out.body = value;
    else if (part.fieldname === 'data[content_blocks]') out.content_blocks = blocksValue(value);
  }
  return out;
}

/** A block document as sent: JSON text is parsed (text that is not JSON is refused by the document's check). */
function blocksValue(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** Registers the email routes under every prefix. */
export function emailRoutes(app: TypedApp, ctx: AppContext): void {
  for (const prefix of EMAIL_PREFIXES) {
    registerSendRoutes(app, ctx, prefix);
    registerReceiptRoute(app, ctx, prefix);
    registerTemplateCollection(app, ctx, prefix);
    registerTemplateItem(app, ctx, prefix);
  }
}

/** The schema fields every email route under `prefix` shares (bare `/v1` is hidden from the document). */
export function schemaBase(prefix: string) {
  const security: { [name: string]: string[] }[] = [{ bearer: [] }, { token: [] }];
  return { hide: prefix === '/v1', tags: ['email'], security };
}

/** Registers the three ways to send under one prefix: one message, several, and from a dynamic template. */
function registerSendRoutes(app: TypedApp, ctx: AppContext, prefix: string): void {
  const base = schemaBase(prefix);
  app.post(
    `${prefix}/messages`,
    {
      config: { rateCost: recipientCost, holdsAttachments: true },
      schema: {
        ...base,
        summary: 'Send one message',
        body: SendBody,
        response: { 200: SendResponse, ...errors },
      },
    },
    (req) => sendMessage(ctx, principalOf(req, 'email'), req.body, idempotencyKey(req)),
  );
  app.post(
    `${prefix}/bulk_messages`,
    {
      config: { rateCost: recipientCost, holdsAttachments: true },
      schema: {
        ...base,
        summary: 'Send several messages',
        body: BulkBody,
        response: { 200: BulkResponse, ...errors },
      },
    },
    (req) => sendBulk(ctx, principalOf(req, 'email'), req.body, idempotencyKey(req)),
  );
  app.post(
    `${prefix}/templated_messages`,
    {
      config: { rateCost: recipientCost, holdsAttachments: true },
      schema: {
        ...base,
        summary: 'Send a message rendered from a dynamic template',
        body: TemplatedBody,
        response: { 200: SendResponse, ...errors },
      },
    },
    (req) => sendTemplated(ctx, principalOf(req, 'email'), req.body, idempotencyKey(req)),
  );
}

/** Registers a sent message's receipt under one prefix. */
function registerReceiptRoute(app: TypedApp, ctx: AppContext, prefix: string): void {
  const base = schemaBase(prefix);
  app.get(
    `${prefix}/message_receipt`,
    {
      schema: {
        ...base,
        summary: 'Delivery, open and click data of a sent message',
        querystring: Type.Object({ sourceTrackingId: Type.String({ minLength: 1 }) }),
        response: { 200: Receipt, ...errors },
      },
    },
    (req) => getReceipt(ctx, principalOf(req, 'email').customerId, req.query.sourceTrackingId),
  );
}

/** Registers the dynamic templates collection under one prefix: list and create. */
function registerTemplateCollection(app: TypedApp, ctx: AppContext, prefix: string): void {
  const base = schemaBase(prefix);
  app.get(
    `${prefix}/dynamic_templates`,
    {
      schema: {
        ...base,
        summary: 'List dynamic templates',
        response: { 200: Type.Object({ templates: Type.Array(Template) }), ...errors },
      },
    },
    async (req) => ({ templates: await allTemplates(ctx, principalOf(req, 'email').customerId) }),
  );
  app.post(
    `${prefix}/dynamic_templates`,
    {
      schema: {
        ...base,
        summary: 'Create a dynamic template (multipart: data[name], data[body] or data[content_blocks])',
        description: BLOCKS_NOTE,
        consumes: ['multipart/form-data'],
        response: { 200: TemplateChange, ...errors },
      },
    },
    async (req) => createTemplate(ctx, principalOf(req, 'email').customerId, await templateParts(req)),
  );
}

/** Registers one dynamic template under one prefix: read, update and delete. */
function registerTemplateItem(app: TypedApp, ctx: AppContext, prefix: string): void {
  const base = schemaBase(prefix);
  app.get(
    `${prefix}/dynamic_templates/:id`,
    {
      schema: {
        ...base,
        summary: 'Read a dynamic template',
        params: IdParam,
        response: { 200: Template, ...errors },
      },
    },
    (req) => oneTemplate(ctx, principalOf(req, 'email').customerId, req.params.id),
  );
  app.patch(
    `${prefix}/dynamic_templates/:id`,
    {
      schema: {
        ...base,
        summary: 'Update a dynamic template (multipart: data[name], data[body], data[content_blocks])',
        description: BLOCKS_NOTE,
        consumes: ['multipart/form-data'],
        params: IdParam,
        response: { 200: TemplateChange, ...errors },
      },
    },
    async (req) =>
      changeTemplate(ctx, principalOf(req, 'email').customerId, req.params.id, await templateParts(req)),
  );
  app.delete(
    `${prefix}/dynamic_templates/:id`,
    {
      schema: {
        ...base,
        summary: 'Delete a dynamic template',
        params: IdParam,
        response: {
          200: Type.Object({ message: Type.String(), params: Type.Object({ id: Type.String() }) }),
          ...errors,
        },
      },
    },
    (req) => removeTemplate(ctx, principalOf(req, 'email').customerId, req.params.id),
  );
}
