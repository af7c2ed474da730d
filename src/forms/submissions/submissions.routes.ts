/** Submission routes under `/v1/forms` and `/forms`: the public JSON submission, the list, CSV exports and the PDF of one. */
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { TypedApp } from '../../http/typed.ts';
import type { AppContext } from '../../context.ts';
import { accountOfKey, principalOf } from '../../http/auth.ts';
import { errorResponses } from '../../mail/error-body.ts';
import {
  FORMS_PREFIXES,
  IdParam,
  SubmissionBody,
  SubmissionParams,
  SubmissionsQuery,
  SubmissionsResponse,
} from '../definitions/forms.schemas.ts';
import { acceptJsonSubmission } from './json-door.ts';
import { requireSubmission } from './submissions.service.ts';
import { submissionsOf } from './submission-list.ts';
import { requireForm } from '../definitions/forms.service.ts';
import { submissionCsv, submissionPdf, submissionsCsv } from './exports.ts';
import type { IpLimiter } from './spam.ts';
import { submissionFile } from './browse.service.ts';
import { attachmentHeaders } from './file-headers.ts';

const security: { [name: string]: string[] }[] = [{ bearer: [] }];
const errors = errorResponses(400, 401, 403, 404, 413, 422, 429);
const CSV = 'text/csv; charset=utf-8';
const CsvQuery = Type.Object(
  {
    bom: Type.Optional(
      Type.Boolean({ default: false, description: 'Start the file with a UTF-8 byte order mark' }),
    ),
  },
  { additionalProperties: true },
);
const FileParams = Type.Object({
  id: Type.String(),
  submission_id: Type.String(),
  field_name: Type.String(),
});

/** Registers the submission routes; `limiter` is shared with the hosted page. */
export function submissionRoutes(app: TypedApp, ctx: AppContext, limiter: IpLimiter): void {
  for (const prefix of FORMS_PREFIXES) {
    registerSubmit(app, ctx, limiter, prefix);
    registerSubmissionList(app, ctx, prefix);
    registerSubmissionCsv(app, ctx, prefix);
    registerSubmissionDownloads(app, ctx, prefix);
  }
}

/** The schema fields every keyed submission route under `prefix` shares (the older `/forms` prefix is hidden). */
function commonSchema(prefix: string) {
  return { hide: prefix === '/forms', tags: ['form submissions'], security };
}

/** Registers the public JSON submission of a response under one prefix, rate limited per address. */
function registerSubmit(app: TypedApp, ctx: AppContext, limiter: IpLimiter, prefix: string): void {
  const base = `${prefix}/api/forms/:id`;
  app.post(
    `${base}/submissions`,
    {
      bodyLimit: ctx.config.formsSubmitMaxBytes,
      onRequest: async (req) => limiter.take(req.ip),
      schema: {
        tags: ['form submissions'],
        hide: prefix === '/forms',
        summary:
          'Submit a response to an active form (no key, unless the form has a bot defence; Idempotency-Key header optional)',
        params: IdParam,
        body: SubmissionBody,
        response: { 201: Type.Null({ description: 'Accepted; the body is empty' }), ...errors },
      },
    },
    async (req, reply) => {
      await acceptJsonSubmission(ctx, req.params.id, req.body ?? {}, {
        ip: req.ip,
        idempotencyKey: req.headers['idempotency-key'],
        keyAccount: () => accountOfKey(req, ctx.database, ctx.authThrottle, 'forms'),
      });
      return reply.code(201).send(undefined as unknown as null);
    },
  );
}

/** Registers a form's submissions under one prefix: the list and the CSV of all of them. */
function registerSubmissionList(app: TypedApp, ctx: AppContext, prefix: string): void {
  const base = `${prefix}/api/forms/:id`;
  const common = commonSchema(prefix);
  app.get(
    `${base}/submissions`,
    {
      config: {
        audit: { action: 'form.submissions_read', target: 'form:{id}', items: { field: 'data', id: 'id' } },
        protectedContent: 'form.submissions_read',
      },
      schema: {
        ...common,
        summary: 'List submissions of a form',
        params: IdParam,
        querystring: SubmissionsQuery,
        response: { 200: SubmissionsResponse, ...errors },
      },
    },
    (req) => submissionsOf(ctx, principalOf(req, 'forms').customerId, req.params.id, req.query),
  );
  app.get(
    `${base}/submissions/submission-csv`,
    {
      config: {
        audit: { action: 'form.submissions_export', target: 'form:{id}' },
        protectedContent: 'form.submissions_export',
      },
      schema: {
        ...common,
        summary: 'CSV of every submission of a form (streamed)',
        params: IdParam,
        querystring: CsvQuery,
        produces: ['text/csv'],
      },
    },
    async (req, reply) => {
      const form = await requireForm(ctx, principalOf(req, 'forms').customerId, req.params.id);
      return reply
        .type(CSV)
        .header('content-disposition', `attachment; filename="form-${form.id}-submissions.csv"`)
        .send(submissionsCsv(ctx, form, { bom: req.query.bom }));
    },
  );
}

/** How a route that exports one submission is audited and marked as protected content. */
const SUBMISSION_EXPORT = {
  audit: { action: 'form.submission_export', target: 'submission:{submission_id}' },
  protectedContent: 'form.submission_export',
};

/** The form and submission a route's path names, refused unless they are the key's account's. */
function namedSubmission(
  ctx: AppContext,
  req: FastifyRequest & { params: { id: string; submission_id: string } },
): ReturnType<typeof requireSubmission> {
  return requireSubmission(
    ctx,
    principalOf(req, 'forms').customerId,
    req.params.id,
    req.params.submission_id,
  );
}

/** Registers the CSV of one submission under one prefix, at its path and the older one. */
function registerSubmissionCsv(app: TypedApp, ctx: AppContext, prefix: string): void {
  const base = `${prefix}/api/forms/:id`;
  const common = commonSchema(prefix);
  for (const path of [
    `${base}/submissions/submission-csv/:submission_id`,
    `${base}/submission-csv/:submission_id`,
  ]) {
    const alias = !path.includes('/submissions/');
    app.get(
      path,
      {
        config: SUBMISSION_EXPORT,
        schema: {
          ...common,
          hide: common.hide || alias,
          summary: alias ? 'CSV of one submission (older path)' : 'CSV of one submission',
          params: SubmissionParams,
          querystring: CsvQuery,
          produces: ['text/csv'],
        },
      },
      async (req, reply) => {
        const { form, row } = await namedSubmission(ctx, req);
        return reply
          .type(CSV)
          .header('content-disposition', `attachment; filename="submission-${row.id}.csv"`)
          .send(submissionCsv(ctx, form, row, { bom: req.query.bom }));
      },
    );
  }
}

/** Registers one submission's PDF (with its signature) and the files uploaded in its fields, under one prefix. */
function registerSubmissionDownloads(app: TypedApp, ctx: AppContext, prefix: string): void {
  const base = `${prefix}/api/forms/:id`;
  const common = commonSchema(prefix);
  app.get(
    `${base}/submissions/:submission_id/submission-pdf`,
    {
      config: SUBMISSION_EXPORT,
      schema: {
        ...common,
        summary: 'PDF of one submission with its signature',
        params: SubmissionParams,
        produces: ['application/pdf'],
      },
    },
    async (req, reply) => {
      const { form, row } = await namedSubmission(ctx, req);
      return reply
        .type('application/pdf')
        .header('content-disposition', `attachment; filename="submission-${row.id}.pdf"`)
        .send(await submissionPdf(ctx, form, row));
    },
  );
  app.get(
    `${base}/submissions/:submission_id/files/:field_name`,
    {
      // submissionFile audits the read.
      config: { protectedContent: 'form.file_download' },
      schema: {
        ...common,
        summary: 'Download the file uploaded in one field of a submission (audited)',
        params: FileParams,
        produces: ['application/octet-stream'],
      },
    },
    async (req, reply) => {
      const p = principalOf(req, 'forms');
      const reader = { accountId: p.customerId, actor: { type: 'key' as const, id: p.keyId }, ip: req.ip };
      const file = await submissionFile(
        ctx,
        reader,
        req.params.id,
        req.params.submission_id,
        req.params.field_name,
      );
      return reply.headers(attachmentHeaders(file.name, file.contentType, false)).send(file.bytes);
    },
  );
}
