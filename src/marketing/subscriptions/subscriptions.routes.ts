/** Subscription routes under both marketing prefixes: `/subscriptions[/<id>]`, subscribe, unsubscribe and the bulk forms. */
import { Type } from '@sinclair/typebox';
import type { TypedApp } from '../../http/typed.ts';
import type { AppContext } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { MARKETING_PREFIXES } from '../ids.ts';
import { IdValue, ListParams, Uuid } from '../lists/lists.schemas.ts';
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

const Subscription = Type.Object({
  id: Uuid,
  type: Type.Literal('subscription'),
  attributes: Type.Object({
    subscriber_id: Uuid,
    subscription_list_id: Uuid,
    unsubscribed: Type.Boolean(),
    unsubscribed_at: Type.Union([Type.String(), Type.Null()]),
    confirmed: Type.Boolean({
      description: 'False while a member of a double opt-in list has not confirmed by email',
    }),
    created_at: Type.String(),
    updated_at: Type.String(),
  }),
});
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

/** Registers the subscription routes. */
export function subscriptionRoutes(app: TypedApp, ctx: AppContext): void {
  const customerOf = (req: Parameters<typeof principalOf>[0]) => principalOf(req, 'marketing').customerId;
  for (const prefix of MARKETING_PREFIXES) {
    const base = `${prefix}/subscriptions`;
    const common = marketingSchemaBase(prefix);
    app.get(
      base,
      {
        schema: {
          ...common,
          summary: 'Subscriptions (list memberships) of the account; the first 1000 unless paginated',
          querystring: Type.Object(PaginationQuery, { additionalProperties: true }),
          response: { 200: PagedAnswer(Subscription), ...MARKETING_ERRORS },
        },
      },
      (req) => subscriptionsOf(ctx, customerOf(req), req.query),
    );
    app.post(
      base,
      {
        schema: {
          ...common,
          summary:
            'Subscribe an existing subscriber to a list (starts drips triggered by subscription_created)',
          body: Type.Object(
            {
              subscription: Type.Object(
                { subscription_list_id: IdValue, subscriber_id: IdValue },
                { additionalProperties: true },
              ),
            },
            { additionalProperties: true },
          ),
          response: one,
        },
      },
      (req) => createSubscription(ctx, customerOf(req), req.body.subscription),
    );
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
}
