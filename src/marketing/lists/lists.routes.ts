/** Subscription list routes under both marketing prefixes: `/subscription_lists[/<id>]`. */
import { Type } from '@sinclair/typebox';
import type { TypedApp } from '../../http/typed.ts';
import type { AppContext } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { ErrorResponse } from '../../email/email.schemas.ts';
import { MARKETING_PREFIXES } from '../ids.ts';
import { Empty, ListBody, ListParams, SubscriptionList } from './lists.schemas.ts';
import { createList, listsOf, removeList, renameListOf } from './lists.service.ts';

const security: { [name: string]: string[] }[] = [{ token: [] }, { bearer: [] }];
const errors = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse, 429: ErrorResponse };

/** Registers the subscription list routes. */
export function listRoutes(app: TypedApp, ctx: AppContext): void {
  for (const prefix of MARKETING_PREFIXES) {
    const base = `${prefix}/subscription_lists`;
    const common = { hide: prefix === '/v1/marketing', tags: ['marketing'], security };
    app.get(
      base,
      {
        schema: {
          ...common,
          summary: 'List subscription lists',
          response: { 200: Type.Object({ data: Type.Array(SubscriptionList) }), ...errors },
        },
      },
      async (req) => ({ data: await listsOf(ctx, principalOf(req, 'marketing').customerId) }),
    );
    app.post(
      base,
      {
        schema: {
          ...common,
          summary: 'Create a subscription list',
          body: ListBody,
          response: { 200: Type.Object({ data: SubscriptionList }), ...errors },
        },
      },
      async (req) => ({ data: await createList(ctx, principalOf(req, 'marketing').customerId, req.body.name) }),
    );
    app.patch(
      `${base}/:id`,
      {
        schema: {
          ...common,
          summary: 'Rename a subscription list',
          params: ListParams,
          body: ListBody,
          response: { 200: Type.Object({ data: SubscriptionList }), ...errors },
        },
      },
      async (req) => ({ data: await renameListOf(ctx, principalOf(req, 'marketing').customerId, req.params.id, req.body.name) }),
    );
    app.delete(
      `${base}/:id`,
      {
        schema: {
          ...common,
          summary: 'Delete a subscription list (not the default list)',
          params: ListParams,
          response: { 200: Empty, ...errors },
        },
      },
      (req) => removeList(ctx, principalOf(req, 'marketing').customerId, req.params.id),
    );
  }
}
