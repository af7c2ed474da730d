/** Export and bulk job routes under both marketing prefixes: `/subscribers_export_csv`, `/export_dynamic_list_csv`, `/bulk_jobs[/<id>[/download]]`. */
import { Type } from '@sinclair/typebox';
import type { TypedApp } from '../../http/typed.ts';
import type { AppContext } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { MARKETING_PREFIXES } from '../ids.ts';
import { IdValue, ListParams } from '../lists/lists.schemas.ts';
import { MARKETING_ERRORS, marketingSchemaBase } from '../routes-common.ts';
import { PagedAnswer, PaginationQuery } from '../paging.ts';
import { bulkJobsOf, downloadExport, jobStatus, requireBulkJob, startExport } from './exports.service.ts';

const NullableString = Type.Union([Type.String(), Type.Null()]);
const BulkJob = Type.Object({
  id: Type.String(),
  type: Type.Literal('bulk_job'),
  attributes: Type.Object({
    kind: Type.String({ description: 'subscribers_export or dynamic_list_export' }),
    state: Type.String({ description: 'queued, running, finished or failed' }),
    rows_done: Type.Integer(),
    rows_total: Type.Union([Type.Integer(), Type.Null()]),
    progress: Type.Number({ description: 'rows_done / rows_total, 0 to 1' }),
    download_url: NullableString,
    error: NullableString,
    created_at: Type.String(),
    finished_at: NullableString,
  }),
});
/** A bulk job as the bulk_jobs reads show it: with the batch totals clients print. */
const BulkJobStatus = Type.Object({
  ...BulkJob.properties,
  total_jobs: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Rows the job works through (null until counted)',
  }),
  pending: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Rows not yet done (null until counted)',
  }),
  failures: Type.Integer({ description: 'Rows left undone by a failed job (at least 1 when it failed)' }),
});
const Started = Type.Object({
  data: Type.Object({
    ...BulkJob.properties,
    download_key: Type.String({ description: 'Shown once; the download needs it' }),
    jid: Type.String({ description: 'The job id again, as Paubox clients read it' }),
    sent_to_email: Type.Union([Type.String(), Type.Null()], {
      description: 'Where the link to the finished export is mailed (the `email` given), or null',
    }),
  }),
});
const ExportBody = Type.Object(
  {
    subscription_list_id: Type.Optional(IdValue),
    dynamic_list_id: Type.Optional(IdValue),
    from_subscription_list_id: Type.Optional(IdValue),
    filters: Type.Optional(
      Type.Unknown({ description: 'Filters as on GET /subscribers (subscribers export)' }),
    ),
    search: Type.Optional(
      Type.String({
        maxLength: 200,
        description: 'Words each subscriber must contain; `*` or empty for all',
      }),
    ),
    subscriber_ids: Type.Optional(
      Type.Array(IdValue, { maxItems: 5000, description: 'Only these subscribers' }),
    ),
    except_ids: Type.Optional(
      Type.Array(IdValue, { maxItems: 5000, description: 'Leave these subscribers out' }),
    ),
    email: Type.Optional(
      Type.String({
        maxLength: 320,
        description: 'Mail a link to the finished export (never the data) here',
      }),
    ),
  },
  { additionalProperties: true },
);

/** The account a marketing request acts for. */
const customerOf = (req: Parameters<typeof principalOf>[0]) => principalOf(req, 'marketing').customerId;

/** The marketing prefix the request came under, for the download URLs shown in answers. */
const shown = (req: { params: unknown }) => {
  const username = (req.params as { username?: string }).username;
  return username ? `/v1/marketing/${username}` : '/v1/marketing';
};

/** Registers the export and bulk job routes. */
export function exportRoutes(app: TypedApp, ctx: AppContext): void {
  for (const prefix of MARKETING_PREFIXES) {
    registerExportStarts(app, ctx, prefix);
    registerBulkJobs(app, ctx, prefix);
  }
}

/** Registers the two ways to start a CSV export under one prefix: subscribers, and a dynamic list. */
function registerExportStarts(app: TypedApp, ctx: AppContext, prefix: string): void {
  const common = marketingSchemaBase(prefix);
  const start = (kind: 'subscribers_export' | 'dynamic_list_export', summary: string) => ({
    schema: { ...common, summary, body: ExportBody, response: { 200: Started, ...MARKETING_ERRORS } },
    preValidation: async (req: { body: unknown }) => {
      req.body ??= {};
    },
    kind,
  });
  for (const [path, spec] of [
    [
      'subscribers_export_csv',
      start('subscribers_export', 'Start a CSV export of subscribers (a list, filters) as a background job'),
    ],
    [
      'export_dynamic_list_csv',
      start('dynamic_list_export', 'Start a CSV export of a dynamic list as a background job'),
    ],
  ] as const) {
    app.post(`${prefix}/${path}`, { schema: spec.schema, preValidation: spec.preValidation }, (req) =>
      startExport(ctx, customerOf(req), spec.kind, req.body, shown(req)),
    );
  }
}

/** Registers the bulk jobs under one prefix: the list, one job, and the download of a finished export. */
function registerBulkJobs(app: TypedApp, ctx: AppContext, prefix: string): void {
  const common = marketingSchemaBase(prefix);
  app.get(
    `${prefix}/bulk_jobs`,
    {
      schema: {
        ...common,
        summary: 'Bulk jobs, newest first, with state and progress',
        querystring: Type.Object(PaginationQuery, { additionalProperties: true }),
        response: { 200: PagedAnswer(BulkJobStatus), ...MARKETING_ERRORS },
      },
    },
    (req) => bulkJobsOf(ctx, customerOf(req), req.query, shown(req)),
  );
  app.get(
    `${prefix}/bulk_jobs/:id`,
    {
      schema: {
        ...common,
        summary: 'One bulk job',
        params: ListParams,
        response: { 200: Type.Object({ data: BulkJobStatus }), ...MARKETING_ERRORS },
      },
    },
    async (req) => ({
      data: jobStatus(await requireBulkJob(ctx, customerOf(req), req.params.id), shown(req)),
    }),
  );
  app.get(
    `${prefix}/bulk_jobs/:id/download`,
    {
      config: {
        audit: { action: 'export.download', target: 'bulk_job:{id}' },
        protectedContent: 'export.download',
      },
      schema: {
        ...common,
        summary: 'The CSV of a finished export (streamed); needs the key given at start',
        params: ListParams,
        querystring: Type.Object(
          { key: Type.Optional(Type.String({ maxLength: 200 })) },
          { additionalProperties: true },
        ),
        produces: ['text/csv'],
      },
    },
    async (req, reply) => {
      const stream = await downloadExport(ctx, customerOf(req), req.params.id, req.query.key);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="export-${req.params.id}.csv"`)
        .send(stream);
    },
  );
}
