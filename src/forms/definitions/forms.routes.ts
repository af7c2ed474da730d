/** Form definition routes under `/v1/forms` and `/forms`: create, list, statistics, copy, read, change, archive, delete, and the public read. */
import { Type } from '@sinclair/typebox';
import type { TypedApp } from '../../http/typed.ts';
import type { AppContext } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { ErrorResponse, errorResponses } from '../../mail/error-body.ts';
import {
  FORMS_PREFIXES,
  CopyBody,
  CreateBody,
  Detail,
  Form,
  IdParam,
  ListQuery,
  ListResponse,
  PublicForm,
  Stats,
  StatsQuery,
  UpdateBody,
  UpdateResponse,
} from './forms.schemas.ts';
import {
  archiveForm,
  changeForm,
  copyForm,
  createForm,
  deleteForm,
  formEnvelopeOf,
  listFormsOf,
  publicFormOf,
  statsOf,
  unarchiveForm,
  type ListCheck,
} from './forms.service.ts';

const security: { [name: string]: string[] }[] = [{ bearer: [] }];
const errors = errorResponses(400, 401, 403, 404, 422, 429);
const verbatim = { verbatimBodyKeys: ['form_json'] };

/** Registers the form definition routes. */
export function formsRoutes(app: TypedApp, ctx: AppContext, lists: ListCheck): void {
  for (const prefix of FORMS_PREFIXES) {
    registerFormCollection(app, ctx, lists, prefix);
    registerFormItem(app, ctx, lists, prefix);
    registerPublicForm(app, ctx, prefix);
  }
}

/** The schema fields every keyed form route under `prefix` shares (the older `/forms` prefix is hidden). */
function commonSchema(prefix: string) {
  return { hide: prefix === '/forms', tags: ['forms'], security };
}

/** Registers the forms collection under one prefix: create, list, statistics and copy. */
function registerFormCollection(app: TypedApp, ctx: AppContext, lists: ListCheck, prefix: string): void {
  const base = `${prefix}/api/forms`;
  const common = commonSchema(prefix);
  app.post(
    base,
    {
      config: verbatim,
      schema: {
        ...common,
        summary: 'Create a form',
        body: CreateBody,
        response: { 200: Type.Object({ id: Type.String() }), ...errors },
      },
    },
    (req) => createForm(ctx, principalOf(req, 'forms').customerId, req.body, lists),
  );
  app.get(
    base,
    {
      schema: {
        ...common,
        summary: 'List forms',
        querystring: ListQuery,
        response: { 200: ListResponse, ...errors },
      },
    },
    (req) => listFormsOf(ctx, principalOf(req, 'forms').customerId, req.query),
  );
  app.get(
    `${base}/stats`,
    {
      schema: {
        ...common,
        summary: 'Form statistics',
        querystring: StatsQuery,
        response: { 200: Stats, ...errors },
      },
    },
    (req) => statsOf(ctx, principalOf(req, 'forms').customerId, req.query.customer_id),
  );
  app.post(
    `${base}/copy`,
    {
      schema: {
        ...common,
        summary: 'Copy a form under a new title',
        body: CopyBody,
        response: { 200: Form, ...errors },
      },
    },
    (req) => copyForm(ctx, principalOf(req, 'forms').customerId, req.body),
  );
}

/** Registers one form under one prefix: read, change, delete, archive and unarchive. */
function registerFormItem(app: TypedApp, ctx: AppContext, lists: ListCheck, prefix: string): void {
  const base = `${prefix}/api/forms`;
  const common = commonSchema(prefix);
  app.get(
    `${base}/:id`,
    {
      schema: {
        ...common,
        summary: 'Read a form',
        params: IdParam,
        response: { 200: Type.Object({ data: Form }), ...errors },
      },
    },
    (req) => formEnvelopeOf(ctx, principalOf(req, 'forms').customerId, req.params.id),
  );
  app.put(
    `${base}/:id`,
    {
      config: verbatim,
      schema: {
        ...common,
        summary: 'Change some fields of a form',
        params: IdParam,
        body: UpdateBody,
        response: { 200: UpdateResponse, ...errors },
      },
    },
    (req) => changeForm(ctx, principalOf(req, 'forms').customerId, req.params.id, req.body, lists),
  );
  app.delete(
    `${base}/:id`,
    {
      schema: {
        ...common,
        summary: 'Delete a form',
        params: IdParam,
        response: { 200: Detail, ...errors },
      },
    },
    (req) => deleteForm(ctx, principalOf(req, 'forms').customerId, req.params.id),
  );
  app.post(
    `${base}/:id/archive`,
    {
      schema: {
        ...common,
        summary: 'Archive a form (also deactivates it)',
        params: IdParam,
        response: { 200: Detail, ...errors },
      },
    },
    (req) => archiveForm(ctx, principalOf(req, 'forms').customerId, req.params.id),
  );
  app.post(
    `${base}/:id/unarchive`,
    {
      schema: {
        ...common,
        summary: 'Unarchive a form (it stays inactive)',
        params: IdParam,
        response: { 200: Detail, ...errors },
      },
    },
    (req) => unarchiveForm(ctx, principalOf(req, 'forms').customerId, req.params.id),
  );
}

/** Registers the public read of an active form for rendering (no key) under one prefix. */
function registerPublicForm(app: TypedApp, ctx: AppContext, prefix: string): void {
  app.get(
    `${prefix}/public/form_data/:id`,
    {
      schema: {
        hide: prefix === '/forms',
        tags: ['forms'],
        summary: 'Read an active form for rendering (no key)',
        params: IdParam,
        response: { 200: PublicForm, 404: ErrorResponse },
      },
    },
    (req) => publicFormOf(ctx, req.params.id),
  );
}
