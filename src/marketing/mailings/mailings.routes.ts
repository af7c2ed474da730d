/** Campaign mailing routes under both marketing prefixes: `/campaign_mailings[/<id>[/send_test_email]]`, `/campaign_mailings_bulk_delete`. */
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { TypedApp } from '../../http/typed.ts';
import type { AppContext } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { MARKETING_PREFIXES } from '../ids.ts';
import { Empty } from '../lists/lists.schemas.ts';
import {
  BulkDeleteIds,
  ChangeBody,
  CreateBody,
  MailingFull,
  MailingItem,
  MailingParams,
  MailingsQuery,
  TestEmailQuery,
} from './mailings.schemas.ts';
import {
  bulkRemoveMailings,
  changeMailing,
  createMailing,
  mailingOf,
  mailingsOf,
  removeMailing,
} from './mailings.service.ts';
import { sendTestEmail } from './test-email.ts';
import { MARKETING_ERRORS, marketingSchemaBase } from '../routes-common.ts';

const one = { 200: Type.Object({ data: MailingFull }), ...MARKETING_ERRORS };
/** A bulk delete may come with no body (its ids in the query) or with `null`. */
const emptyBodyAsObject = async (req: FastifyRequest): Promise<void> => {
  req.body ??= {};
};

/** Registers the campaign mailing routes. */
export function mailingRoutes(app: TypedApp, ctx: AppContext): void {
  for (const prefix of MARKETING_PREFIXES) {
    registerMailingCollection(app, ctx, prefix);
    registerMailingItem(app, ctx, prefix);
    registerTestEmail(app, ctx, prefix);
    registerMailingBulkDelete(app, ctx, prefix);
  }
}

/** Registers the mailings collection under one prefix: list and create. */
function registerMailingCollection(app: TypedApp, ctx: AppContext, prefix: string): void {
  const base = `${prefix}/campaign_mailings`;
  const common = marketingSchemaBase(prefix);
  app.get(
    base,
    {
      schema: {
        ...common,
        summary: 'List campaign mailings, a page at a time',
        querystring: MailingsQuery,
        response: { 200: Type.Object({ data: Type.Array(MailingItem) }), ...MARKETING_ERRORS },
      },
    },
    async (req) => ({ data: await mailingsOf(ctx, principalOf(req, 'marketing').customerId, req.query) }),
  );
  app.post(
    base,
    { schema: { ...common, summary: 'Create a campaign mailing', body: CreateBody, response: one } },
    async (req) => ({
      data: await createMailing(ctx, principalOf(req, 'marketing').customerId, req.body.campaign_mailing),
    }),
  );
}

/** Registers one mailing under one prefix: read, change (PATCH or PUT) and delete. */
function registerMailingItem(app: TypedApp, ctx: AppContext, prefix: string): void {
  const base = `${prefix}/campaign_mailings`;
  const common = marketingSchemaBase(prefix);
  app.get(
    `${base}/:id`,
    {
      schema: {
        ...common,
        summary: 'One campaign mailing with its content',
        params: MailingParams,
        response: one,
      },
    },
    async (req) => ({
      data: await mailingOf(ctx, principalOf(req, 'marketing').customerId, req.params.id),
    }),
  );
  for (const method of ['PATCH', 'PUT'] as const) {
    app.route({
      method,
      url: `${base}/:id`,
      schema: {
        ...common,
        summary: 'Change a campaign mailing (only the fields sent)',
        params: MailingParams,
        body: ChangeBody,
        response: one,
      },
      handler: async (req) => ({
        data: await changeMailing(
          ctx,
          principalOf(req, 'marketing').customerId,
          req.params.id,
          req.body.campaign_mailing,
        ),
      }),
    });
  }
  app.delete(
    `${base}/:id`,
    {
      schema: {
        ...common,
        summary: 'Delete a campaign mailing with its sends (not while one is sending)',
        params: MailingParams,
        response: { 200: Empty, ...MARKETING_ERRORS },
      },
    },
    (req) => removeMailing(ctx, principalOf(req, 'marketing').customerId, req.params.id),
  );
}

/** Registers the preview of a mailing sent to one address, under one prefix. */
function registerTestEmail(app: TypedApp, ctx: AppContext, prefix: string): void {
  const common = marketingSchemaBase(prefix);
  app.get(
    `${prefix}/campaign_mailings/:id/send_test_email`,
    {
      schema: {
        ...common,
        summary: 'Send one preview of the mailing to an address',
        params: MailingParams,
        querystring: TestEmailQuery,
        response: { 204: Type.Null(), ...MARKETING_ERRORS },
      },
    },
    async (req, reply) => {
      const principal = principalOf(req, 'marketing');
      await sendTestEmail(
        ctx,
        { customerId: principal.customerId, domain: principal.domain },
        req.params.id,
        req.query.to_email,
      );
      return reply.code(204).send(null);
    },
  );
}

/** Registers the delete of many mailings by id (in the body or the query), under one prefix. */
function registerMailingBulkDelete(app: TypedApp, ctx: AppContext, prefix: string): void {
  const common = marketingSchemaBase(prefix);
  app.delete(
    `${prefix}/campaign_mailings_bulk_delete`,
    {
      schema: {
        ...common,
        summary: 'Delete campaign mailings by id (ids in the JSON body or the query)',
        querystring: BulkDeleteIds,
        body: BulkDeleteIds,
        response: { 200: Empty, ...MARKETING_ERRORS },
      },
      config: { jsonBodyOnDelete: true },
      preValidation: emptyBodyAsObject,
    },
    (req) => {
      const ids =
        req.body.campaign_mailing_ids ??
        req.body['campaign_mailing_ids[]'] ??
        req.query.campaign_mailing_ids ??
        req.query['campaign_mailing_ids[]'];
      return bulkRemoveMailings(ctx, principalOf(req, 'marketing').customerId, ids);
    },
  );
}
