/** Subscription list routes under both marketing prefixes: `/subscription_lists[/<id>]`. */
import { Type } from '@sinclair/typebox';
import type { TypedApp } from '../../http/typed.ts';
import type { AppContext } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { MARKETING_PREFIXES } from '../ids.ts';
import { Empty, ListBody, ListParams, SubscriptionList } from './lists.schemas.ts';
import { createList, listOf, listsOf, removeList, renameListOf } from './lists.service.ts';
import { PagedAnswer } from '../paging.ts';
import { listIndexQuery, SUBSCRIPTION_LIST_ORDER } from '../list-query.ts';
import { MARKETING_ERRORS, marketingSchemaBase } from '../routes-common.ts';

/** Registers the subscription list routes. */
export function listRoutes(app: TypedApp, ctx: AppContext): void {
  for (const prefix of MARKETING_PREFIXES) {
    const base = `${prefix}/subscription_lists`;
    const common = marketingSchemaBase(prefix);
    app.get(
      base,
      {
        schema: {
          ...common,
          summary: 'List subscription lists',
          querystring: listIndexQuery(SUBSCRIPTION_LIST_ORDER, {}),
          response: { 200: PagedAnswer(SubscriptionList), ...MARKETING_ERRORS },
        },
      },
      (req) => listsOf(ctx, principalOf(req, 'marketing').customerId, req.query),
    );
    app.get(
      `${base}/:id`,
      {
        schema: {
          ...common,
          summary: 'One subscription list',
          params: ListParams,
          response: { 200: Type.Object({ data: SubscriptionList }), ...MARKETING_ERRORS },
        },
      },
      async (req) => ({ data: await listOf(ctx, principalOf(req, 'marketing').customerId, req.params.id) }),
    );
    app.post(
      base,
      {
        schema: {
          ...common,
          summary: 'Create a subscription list',
          body: ListBody,
          response: { 200: Type.Object({ data: SubscriptionList }), ...MARKETING_ERRORS },
        },
      },
      async (req) => ({
        data: await createList(ctx, principalOf(req, 'marketing').customerId, req.body.name),
      }),
    );
    app.patch(
      `${base}/:id`,
      {
        schema: {
          ...common,
          summary: 'Rename a subscription list',
          params: ListParams,
          body: ListBody,
          response: { 200: Type.Object({ data: SubscriptionList }), ...MARKETING_ERRORS },
        },
      },
      async (req) => ({
        data: await renameListOf(ctx, principalOf(req, 'marketing').customerId, req.params.id, req.body.name),
      }),
    );
    app.delete(
      `${base}/:id`,
      {
        schema: {
          ...common,
          summary: 'Delete a subscription list (not the default list)',
          params: ListParams,
          response: { 200: Empty, ...MARKETING_ERRORS },
        },
      },
      (req) => removeList(ctx, principalOf(req, 'marketing').customerId, req.params.id),
    );
  }
}
