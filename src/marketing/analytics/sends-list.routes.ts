/** Listing routes under both marketing prefixes: `GET /campaign_mailing_sends` and `GET /campaign_mailing_deliveries`. */
import { NullableIntId, NullableUuid, Uuid } from '../lists/lists.schemas.ts';
import { Type } from '@sinclair/typebox';
import type { TypedApp } from '../../http/typed.ts';
import type { AppContext } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { MARKETING_PREFIXES } from '../ids.ts';
import { MARKETING_ERRORS, marketingSchemaBase } from '../routes-common.ts';
import { PagedAnswer } from '../paging.ts';
import { DELIVERY_LIST_ORDER, SEND_LIST_ORDER } from './sends-list.repository.ts';
import { deliveriesListOf, sendsListOf } from './sends-list.service.ts';
import { SendSchema } from '../campaigns/sends.routes.ts';

const oneOf = <const T extends readonly string[]>(values: T, def: T[number]) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], default: def });
const Paging = {
  order: oneOf(['asc', 'desc'] as const, 'desc'),
  items: Type.Integer({ minimum: 1, maximum: 1000, default: 50 }),
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
};
const NullableString = Type.Union([Type.String(), Type.Null()]);

const Delivery = Type.Object({
  id: Uuid,
  type: Type.Literal('campaign_mailing_delivery'),
  attributes: Type.Object({
    campaign_mailing_send_id: NullableIntId,
    campaign_mailing_id: NullableIntId,
    subscriber_id: NullableUuid,
    email: Type.String(),
    status: Type.String({ description: 'queued, deferred, delivered, failed or skipped' }),
    delivery_status: Type.String(),
    delivered_at: NullableString,
    opened_at: NullableString,
    open_count: Type.Integer(),
    click_count: Type.Integer(),
    soft_bounced: Type.Boolean(),
    unsubscribed_at: NullableString,
    created_at: Type.String(),
  }),
});

const paged = <T extends Parameters<typeof Type.Array>[0]>(item: T) => ({
  200: PagedAnswer(item),
  ...MARKETING_ERRORS,
});

/** Registers the sends and deliveries listings. */
export function sendsListRoutes(app: TypedApp, ctx: AppContext): void {
  const customerOf = (req: Parameters<typeof principalOf>[0]) => principalOf(req, 'marketing').customerId;
  for (const prefix of MARKETING_PREFIXES) {
    const common = marketingSchemaBase(prefix);
    app.get(
      `${prefix}/campaign_mailing_sends`,
      {
        schema: {
          ...common,
          summary:
            'Sends in every state, a page at a time; `search` as on the sends table (Field:Value, or a plain term)',
          querystring: Type.Object(
            {
              search: Type.Optional(
                Type.String({
                  maxLength: 500,
                  description:
                    'Field:Value (subscription_list_name, subject, id or campaign_mailing_id), or a plain term matched against the subject and the list name',
                }),
              ),
              order_by: oneOf(SEND_LIST_ORDER, 'created_at'),
              ...Paging,
            },
            { additionalProperties: true },
          ),
          response: paged(SendSchema),
        },
      },
      (req) => sendsListOf(ctx, customerOf(req), req.query),
    );
    app.get(
      `${prefix}/campaign_mailing_deliveries`,
      {
        schema: {
          ...common,
          summary: 'Deliveries (one per email) of a send, of a mailing, or of the account, a page at a time',
          querystring: Type.Object(
            {
              campaign_mailing_send_id: Type.Optional(Type.String({ maxLength: 40 })),
              campaign_mailing_id: Type.Optional(Type.String({ maxLength: 40 })),
              order_by: oneOf(DELIVERY_LIST_ORDER, 'created_at'),
              ...Paging,
            },
            { additionalProperties: true },
          ),
          response: paged(Delivery),
        },
      },
      (req) => deliveriesListOf(ctx, customerOf(req), req.query),
    );
  }
}
