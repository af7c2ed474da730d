/** Subscriber routes under both marketing prefixes: `/subscribers[/<id>[/subscribe|/unsubscribe]]`, `/subscribers_bulk_create`, `/subscribers_bulk_delete`. */
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { TypedApp } from '../../http/typed.ts';
import type { AppContext } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { MARKETING_PREFIXES } from '../ids.ts';
import { Empty } from '../lists/lists.schemas.ts';
import {
  BulkCreateBody,
  BulkDeleteQuery,
  CreateBody,
  MembershipBody,
  PatchBody,
  SubscriberFull,
  SubscriberParams,
  SubscriberQuery,
  SubscribedCountQuery,
  SubscribersQuery,
  SubscriberShort,
} from './subscribers.schemas.ts';
import {
  changeSubscriber,
  createSubscriber,
  setSubscribed,
  subscriberOf,
  subscribersOf,
} from './subscribers.service.ts';
import { bulkCreate, bulkDelete } from './subscribers.bulk.ts';
import { MARKETING_ERRORS, marketingSchemaBase } from '../routes-common.ts';
import { PagedAnswer } from '../paging.ts';
import { subscribedCountOf } from '../lists/lists.service.ts';

/** An operation whose body is all optional may come with no body at all (clients send an empty JSON POST). */
const emptyBodyAsObject = async (req: FastifyRequest): Promise<void> => {
  req.body ??= {};
};
const one = (schema: typeof SubscriberShort | typeof SubscriberFull) => ({
  200: Type.Object({ data: schema }),
  ...MARKETING_ERRORS,
});

/** Registers the subscriber routes. */
export function subscriberRoutes(app: TypedApp, ctx: AppContext): void {
  for (const prefix of MARKETING_PREFIXES) {
    registerSubscriberReads(app, ctx, prefix);
    registerSubscriberWrites(app, ctx, prefix);
    registerBulkRoutes(app, ctx, prefix);
  }
}

/** Registers the reads under one prefix: the paged list, a list's subscribed count, and one subscriber. */
function registerSubscriberReads(app: TypedApp, ctx: AppContext, prefix: string): void {
  const base = `${prefix}/subscribers`;
  const common = marketingSchemaBase(prefix);
  app.get(
    base,
    {
      schema: {
        ...common,
        summary: 'List subscribers, a page at a time (of a list, a dynamic list, or matching filters)',
        querystring: SubscribersQuery,
        response: { 200: PagedAnswer(SubscriberShort), ...MARKETING_ERRORS },
      },
    },
    (req) => subscribersOf(ctx, principalOf(req, 'marketing').customerId, req.query),
  );
  app.get(
    `${base}/subscribed_count`,
    {
      schema: {
        ...common,
        summary: 'How many members of a list are subscribed (the default list when none is named)',
        querystring: SubscribedCountQuery,
        response: {
          200: Type.Object({ data: Type.Integer({ description: 'Subscribed members of the list' }) }),
          ...MARKETING_ERRORS,
        },
      },
    },
    (req) => subscribedCountOf(ctx, principalOf(req, 'marketing').customerId, req.query.subscription_list_id),
  );
  app.get(
    `${base}/:id`,
    {
      schema: {
        ...common,
        summary: 'One subscriber with every attribute',
        params: SubscriberParams,
        querystring: SubscriberQuery,
        response: one(SubscriberFull),
      },
    },
    async (req) => ({
      data: await subscriberOf(
        ctx,
        principalOf(req, 'marketing').customerId,
        req.params.id,
        req.query.with_stats,
      ),
    }),
  );
}

/** Registers the changes to one subscriber under one prefix: create, change, subscribe and unsubscribe. */
function registerSubscriberWrites(app: TypedApp, ctx: AppContext, prefix: string): void {
  const base = `${prefix}/subscribers`;
  const common = marketingSchemaBase(prefix);
  app.post(
    base,
    {
      schema: {
        ...common,
        summary: 'Create a subscriber',
        body: CreateBody,
        response: one(SubscriberShort),
      },
    },
    async (req) => ({
      data: await createSubscriber(
        ctx,
        principalOf(req, 'marketing').customerId,
        req.body.subscriber,
        req.body.subscription_list_id,
      ),
    }),
  );
  app.patch(
    `${base}/:id`,
    {
      schema: {
        ...common,
        summary: 'Change a subscriber',
        params: SubscriberParams,
        body: PatchBody,
        response: one(SubscriberShort),
      },
    },
    async (req) => ({
      data: await changeSubscriber(
        ctx,
        principalOf(req, 'marketing').customerId,
        req.params.id,
        req.body.subscriber,
      ),
    }),
  );
  for (const [op, subscribed] of [
    ['subscribe', true],
    ['unsubscribe', false],
  ] as const) {
    app.post(
      `${base}/:id/${op}`,
      {
        schema: {
          ...common,
          summary: subscribed
            ? 'Subscribe again, to one list or globally'
            : 'Unsubscribe, from one list or globally',
          params: SubscriberParams,
          body: MembershipBody,
          response: one(SubscriberFull),
        },
        preValidation: emptyBodyAsObject,
      },
      async (req) => ({
        data: await setSubscribed(
          ctx,
          principalOf(req, 'marketing').customerId,
          req.params.id,
          subscribed,
          req.body.subscription_list_id,
        ),
      }),
    );
  }
}

/** Registers the bulk operations under one prefix: create or update many, remove many. */
function registerBulkRoutes(app: TypedApp, ctx: AppContext, prefix: string): void {
  const common = marketingSchemaBase(prefix);
  app.post(
    `${prefix}/subscribers_bulk_create`,
    {
      schema: {
        ...common,
        summary: 'Create or update many subscribers in one transaction',
        body: BulkCreateBody,
        response: {
          200: Type.Object({
            data: Type.Object({
              num_subscribers_added: Type.Integer(),
              num_subscribers_updated: Type.Integer(),
            }),
          }),
          ...MARKETING_ERRORS,
        },
      },
    },
    async (req) => ({
      data: await bulkCreate(
        ctx,
        principalOf(req, 'marketing').customerId,
        req.body.subscribers,
        req.body.subscription_list_id,
      ),
    }),
  );
  app.delete(
    `${prefix}/subscribers_bulk_delete`,
    {
      schema: {
        ...common,
        summary: 'Remove subscribers from a list, or from all contacts',
        querystring: BulkDeleteQuery,
        response: { 200: Empty, ...MARKETING_ERRORS },
      },
    },
    (req) =>
      bulkDelete(
        ctx,
        principalOf(req, 'marketing').customerId,
        req.query.subscriber_ids,
        req.query.subscription_list_id,
      ),
  );
}
