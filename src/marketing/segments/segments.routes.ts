/** Dynamic list routes under both marketing prefixes: `/dynamic_lists[/<id>]`, and `/lists` (subscription and dynamic lists together). */
import { Type } from '@sinclair/typebox';
import type { TypedApp } from '../../http/typed.ts';
import type { AppContext } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { MARKETING_PREFIXES } from '../ids.ts';
import { Empty, ListParams } from '../lists/lists.schemas.ts';
import { MARKETING_ERRORS, marketingSchemaBase } from '../routes-common.ts';
import { PagedAnswer } from '../paging.ts';
import {
  AnyList,
  ChangeDynamicListBody,
  CreateDynamicListBody,
  DynamicList,
  DynamicListsQuery,
} from './segments.schemas.ts';
import {
  changeDynamicList,
  createDynamicList,
  dynamicListOf,
  dynamicListsOf,
  removeDynamicList,
} from './segments.service.ts';
import { allListsOf } from './all-lists.service.ts';

const one = { 200: Type.Object({ data: DynamicList }), ...MARKETING_ERRORS };

/** Registers the dynamic list routes and `/lists`. */
export function segmentRoutes(app: TypedApp, ctx: AppContext): void {
  const customerOf = (req: Parameters<typeof principalOf>[0]) => principalOf(req, 'marketing').customerId;
  for (const prefix of MARKETING_PREFIXES) {
    const base = `${prefix}/dynamic_lists`;
    const common = marketingSchemaBase(prefix);
    app.get(
      base,
      {
        schema: {
          ...common,
          summary: 'List dynamic lists',
          querystring: DynamicListsQuery,
          response: { 200: PagedAnswer(DynamicList), ...MARKETING_ERRORS },
        },
      },
      (req) => dynamicListsOf(ctx, customerOf(req), req.query),
    );
    app.post(
      base,
      { schema: { ...common, summary: 'Create a dynamic list', body: CreateDynamicListBody, response: one } },
      async (req) => ({ data: await createDynamicList(ctx, customerOf(req), req.body) }),
    );
    app.get(
      `${base}/:id`,
      {
        schema: {
          ...common,
          summary: 'One dynamic list with its current subscriber count',
          params: ListParams,
          response: one,
        },
      },
      async (req) => ({ data: await dynamicListOf(ctx, customerOf(req), req.params.id) }),
    );
    app.patch(
      `${base}/:id`,
      {
        schema: {
          ...common,
          summary: 'Change a dynamic list',
          params: ListParams,
          body: ChangeDynamicListBody,
          response: one,
        },
      },
      async (req) => ({ data: await changeDynamicList(ctx, customerOf(req), req.params.id, req.body) }),
    );
    app.delete(
      `${base}/:id`,
      {
        schema: {
          ...common,
          summary: 'Delete a dynamic list',
          params: ListParams,
          response: { 200: Empty, ...MARKETING_ERRORS },
        },
      },
      (req) => removeDynamicList(ctx, customerOf(req), req.params.id),
    );
    app.get(
      `${prefix}/lists`,
      {
        schema: {
          ...common,
          summary: 'Subscription lists and dynamic lists together',
          querystring: DynamicListsQuery,
          response: { 200: PagedAnswer(AnyList), ...MARKETING_ERRORS },
        },
      },
      (req) => allListsOf(ctx, customerOf(req), req.query),
    );
  }
}
