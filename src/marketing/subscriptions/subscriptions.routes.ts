/** Subscription routes under both marketing prefixes: `/subscriptions[/<id>]`, subscribe, unsubscribe and the bulk forms. */
import type { Readable } from 'node:stream';
import { Type, type Static } from '@sinclair/typebox';
import type { TypedApp } from '../../http/typed.ts';
import type { AppContext } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { MARKETING_PREFIXES } from '../ids.ts';
import { IdValue, IntId, ListParams } from '../lists/lists.schemas.ts';
import { MARKETING_ERRORS, marketingSchemaBase } from '../routes-common.ts';
import { PagedAnswer, PaginationQuery } from '../paging.ts';
import { SubscriberShort } from '../subscribers/subscribers.schemas.ts';
import {
  bulkGlobal,
  changeSubscriptions,
  createSubscription,
  deleteSubscription,
  subscriptionOf,
  subscriptionsOf,
} from './subscriptions.service.ts';

const Timestamp = Type.String({ format: 'date-time' });
const Subscription = Type.Object({
  id: Type.Integer({ description: 'Internal numeric id of the subscription' }),
  uuid: Type.String({ description: 'Public id of the subscription: the `subscription_id` of paths' }),
  subscription_list_id: Type.Union([IntId, Type.Null()], { description: 'Id of the subscription list' }),
  dynamic_list_id: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Null: subscriptions here are always of subscription lists',
  }),
  subscriber_id: Type.Integer({ description: 'Internal numeric id of the subscriber' }),
  unsubscribed_at: Type.Union([Timestamp, Type.Null()], {
    description: 'When the subscriber left this list; null while subscribed',
  }),
  delete_at: Type.Union([Timestamp, Type.Null()], { description: 'Always null: records are kept' }),
  created_at: Timestamp,
  updated_at: Timestamp,
  confirmed: Type.Boolean({
    description: 'False while a member of a double opt-in list has not confirmed by email',
  }),
});
const Paged = PagedAnswer(Subscription);
/** The list answer: a page object, or the whole list as a stream of the same JSON (sent as is, not serialized). */
const Listed = Type.Unsafe<Static<typeof Paged> | Readable>(Paged);
const one = { 200: Type.Object({ data: Subscription }), ...MARKETING_ERRORS };
const Ids = Type.Array(IdValue, { maxItems: 5000 });
const ChangeBody = Type.Object(
  { subscriber_ids: Ids, subscription_list_ids: Type.Optional(Type.Union([Ids, Type.Null()])) },
  { additionalProperties: true },
);
const BulkBody = Type.Object(
  {
    subscriber_ids: Type.Optional(Ids),
    from_subscription_list_id: Type.Optional(IdValue),
    filters: Type.Optional(Type.Unknown()),
    search: Type.Optional(
      Type.String({ maxLength: 200, description: 'Accepted; `*` or empty means everyone' }),
    ),
    except_ids: Type.Optional(Ids),
  },
  { additionalProperties: true },
);
const Changed = { 200: Type.Object({ data: Type.Array(SubscriberShort) }), ...MARKETING_ERRORS };
const BulkAnswer = {
  200: Type.Union([
    Type.Object({ data: Type.Array(SubscriberShort) }),
    Type.Object({ data: Type.Object({ num_subscribers_updated: Type.Integer() }) }),
  ]),
  ...MARKETING_ERRORS,
};

/** The account a marketing request acts for. */
const customerOf = (req: Parameters<typeof principalOf>[0]) => principalOf(req, 'marketing').customerId;

/** Registers the subscription routes. */
export function subscriptionRoutes(app: TypedApp, ctx: AppContext): void {
  for (const prefix of MARKETING_PREFIXES) {
    registerSubscriptionCollection(app, ctx, prefix);
    registerMembershipChanges(app, ctx, prefix);
    registerSubscriptionItem(app, ctx, prefix);
  }
}

/** Registers the subscriptions collection under one prefix: list (streamed or paged) and create. */
function registerSubscriptionCollection(app: TypedApp, ctx: AppContext, prefix: string): void {
  const base = `${prefix}/subscriptions`;
  const common = marketingSchemaBase(prefix);
  app.get(
    base,
    {
      schema: {
        ...common,
        summary:
          'Subscriptions (list memberships) of the account: all of them, streamed, unless use_pagination asks for a page',
        querystring: Type.Object(PaginationQuery, { additionalProperties: true }),
        response: { 200: Listed, ...MARKETING_ERRORS },
      },
    },
    async (req, reply) =>
      reply
        .type('application/json; charset=utf-8')
        .send(await subscriptionsOf(ctx, customerOf(req), req.query)),
  );
  app.post(
    base,
    {
      schema: {
        ...common,
        summary:
          'Subscribe an existing subscriber to a list (starts drips triggered by subscription_created); a request that fails validation answers 200 with errors',
        body: Type.Object(
          {
            subscription: Type.Optional(
              Type.Object(
                { subscription_list_id: Type.Optional(IdValue), subscriber_id: Type.Optional(IdValue) },
                { additionalProperties: true },
              ),
            ),
          },
          { additionalProperties: true },
        ),
        response: {
          200: Type.Union([
            Type.Object({ data: Subscription }),
            Type.Object({
              errors: Type.Array(Type.String(), { description: 'Why nothing was created' }),
            }),
          ]),
          ...MARKETING_ERRORS,
        },
      },
    },
    (req) => createSubscription(ctx, customerOf(req), req.body.subscription),
  );
}

/** Registers subscribe and unsubscribe under one prefix: for named subscribers, and the global bulk forms. */
function registerMembershipChanges(app: TypedApp, ctx: AppContext, prefix: string): void {
  const base = `${prefix}/subscriptions`;
  const common = marketingSchemaBase(prefix);
  for (const [op, subscribed] of [
    ['subscribe', true],
    ['unsubscribe', false],
  ] as const) {
    app.post(
      `${base}/${op}`,
      {
        schema: {
          ...common,
          summary: subscribed
            ? 'Re-subscribe subscribers: to these lists, and always clearing the global opt-out'
            : 'Unsubscribe subscribers: from these lists, or globally when no list is named',
          body: ChangeBody,
          response: Changed,
        },
      },
      (req) => changeSubscriptions(ctx, customerOf(req), req.body, subscribed),
    );
    for (const dynamic of [false, true]) {
      app.post(
        `${base}/${dynamic ? 'dynamic_bulk' : 'bulk_global'}_${op}`,
        {
          schema: {
            ...common,
            summary: `Global ${subscribed ? 'opt-in' : 'opt-out'} of named subscribers, or of every one of a ${dynamic ? 'dynamic list' : 'subscription list'} minus except_ids`,
            body: BulkBody,
            response: BulkAnswer,
          },
        },
        (req) => bulkGlobal(ctx, customerOf(req), req.body, subscribed, dynamic),
      );
    }
  }
}

/** Registers one subscription under one prefix: read, and delete (which unsubscribes). */
function registerSubscriptionItem(app: TypedApp, ctx: AppContext, prefix: string): void {
  const base = `${prefix}/subscriptions`;
  const common = marketingSchemaBase(prefix);
  app.get(
    `${base}/:id`,
    { schema: { ...common, summary: 'One subscription', params: ListParams, response: one } },
    (req) => subscriptionOf(ctx, customerOf(req), req.params.id),
  );
  app.delete(
    `${base}/:id`,
    {
      schema: {
        ...common,
        summary: 'Unsubscribe from the list of this subscription (the record stays)',
        params: ListParams,
        response: one,
      },
    },
    (req) => deleteSubscription(ctx, customerOf(req), req.params.id),
  );
}
