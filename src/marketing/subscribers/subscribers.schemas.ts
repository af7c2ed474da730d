/** Request and response schemas of the subscriber routes. Emails are checked by the service, which names the entry. */
import { Type } from '@sinclair/typebox';
import { IdValue, IntId, Uuid } from '../lists/lists.schemas.ts';

const Name = Type.String({ maxLength: 255 });
const NullableString = Type.Union([Type.String(), Type.Null()]);

/** A custom field as sent: `{name, value}`. */
export const CustomFieldIn = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255 }),
    value: Type.Optional(Type.Union([Type.String({ maxLength: 10_000 }), Type.Number(), Type.Boolean()])),
  },
  { additionalProperties: true },
);

/** Attributes of every subscriber answer. */
const ShortAttributes = {
  email: Type.Union([Type.String(), Type.Null()], {
    description: 'Null for a subscriber known by phone only',
  }),
  unsubscribed: Type.Boolean(),
  first_name: NullableString,
  last_name: NullableString,
  full_name: Type.Union([Type.String(), Type.Null()], {
    description: 'First and last name joined by a space; null when both are absent',
  }),
  created_at: Type.String(),
};

/** A subscriber in the list, create and update answers. */
export const SubscriberShort = Type.Object({
  id: Uuid,
  type: Type.Literal('subscriber'),
  attributes: Type.Object(ShortAttributes),
});

/** One subscriber with every attribute (spec 2.9). */
export const SubscriberFull = Type.Object({
  id: Uuid,
  type: Type.Literal('subscriber'),
  attributes: Type.Object({
    ...ShortAttributes,
    phone_number: Type.Union([Type.String(), Type.Null()], { description: 'E.164' }),
    phone_number_input: Type.Union([Type.String(), Type.Null()], {
      description: 'The phone number as typed',
    }),
    updated_at: Type.String(),
    custom_fields: Type.Array(
      Type.Object({
        subscriber_custom_field_type_id: Type.String(),
        custom_field_name: Type.String(),
        custom_field_value: Type.String(),
        name: Type.String({ description: 'Same as custom_field_name' }),
        value: Type.String({ description: 'Same as custom_field_value' }),
      }),
    ),
    subscription_lists: Type.Array(
      Type.Object({ id: IntId, uuid: Uuid, name: Type.String(), unsubscribed: Type.Boolean() }),
    ),
    statistics: Type.Optional(
      Type.Object({
        deliveries: Type.Integer(),
        delivered: Type.Integer(),
        opened: Type.Integer(),
        clicked: Type.Integer(),
        soft_bounced: Type.Integer(),
        hard_bounced: Type.Integer(),
        unsubscribed: Type.Integer(),
        global_unsubscribed: Type.Integer(),
      }),
    ),
  }),
});

/** `GET /subscribers` query. */
export const SubscribersQuery = Type.Object(
  {
    items: Type.Integer({ minimum: 1, maximum: 1000, default: 50 }),
    page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
    search: Type.Optional(
      Type.String({
        maxLength: 200,
        description:
          'Letters, digits and whitespace; every word must appear in the email, first or last name',
      }),
    ),
    order_by: Type.Union(
      [
        Type.Literal('first_name'),
        Type.Literal('last_name'),
        Type.Literal('email'),
        Type.Literal('created_at'),
        Type.Literal('updated_at'),
      ],
      {
        default: 'created_at',
      },
    ),
    order: Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'desc' }),
    subscription_list_id: Type.Optional(
      Type.String({ maxLength: 40, description: 'Only this list; all subscribers by default' }),
    ),
    dynamic_list_id: Type.Optional(
      Type.String({ maxLength: 40, description: 'Only the subscribers matching this dynamic list' }),
    ),
    filters: Type.Optional(
      Type.String({
        maxLength: 20_000,
        description: 'URL-encoded JSON filters (the dynamic list grammar, docs/marketing.md)',
      }),
    ),
    use_pagination: Type.Optional(Type.Boolean({ description: 'Add `page_info` and `total_count`' })),
  },
  { additionalProperties: true },
);

/** `GET /subscribers/subscribed_count` query. */
export const SubscribedCountQuery = Type.Object(
  {
    subscription_list_id: Type.Optional(
      Type.String({ maxLength: 40, description: 'The default list when absent' }),
    ),
  },
  { additionalProperties: true },
);

/** `GET /subscribers/<id>` query. */
export const SubscriberQuery = Type.Object(
  {
    with_stats: Type.Boolean({
      default: false,
      description: 'Include the campaign counters as `statistics`',
    }),
  },
  { additionalProperties: true },
);

/** `POST /subscribers`. */
export const CreateBody = Type.Object(
  {
    subscriber: Type.Object(
      {
        email: Type.Optional(
          Type.Union([Type.String({ maxLength: 320 }), Type.Null()], {
            description: 'Required unless phone_number is given',
          }),
        ),
        first_name: Type.Optional(Name),
        last_name: Type.Optional(Name),
        phone_number: Type.Optional(
          Type.Union([Type.String({ maxLength: 64 }), Type.Null()], {
            description: 'International form (+ and country code); stored as E.164',
          }),
        ),
        custom_fields: Type.Optional(Type.Array(CustomFieldIn, { maxItems: 100 })),
      },
      { additionalProperties: true },
    ),
    subscription_list_id: Type.Optional(IdValue),
  },
  { additionalProperties: true },
);

/** `PATCH /subscribers/<id>`. */
export const PatchBody = Type.Object(
  {
    subscriber: Type.Object(
      {
        email: Type.Optional(Type.String({ maxLength: 320 })),
        phone_number: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
        first_name: Type.Optional(Name),
        last_name: Type.Optional(Name),
        custom_fields: Type.Optional(Type.Array(CustomFieldIn, { maxItems: 100 })),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true },
);

/** `POST /subscribers_bulk_create`. */
export const BulkCreateBody = Type.Object(
  {
    subscribers: Type.Array(
      Type.Object(
        {
          email: Type.String({ maxLength: 320 }),
          first_name: Type.Optional(Name),
          last_name: Type.Optional(Name),
          phone_number: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
          custom_fields: Type.Optional(Type.Array(CustomFieldIn, { maxItems: 100 })),
        },
        { additionalProperties: true },
      ),
      { minItems: 1, maxItems: 5000 },
    ),
    subscription_list_id: Type.Optional(IdValue),
  },
  { additionalProperties: true },
);

/** `DELETE /subscribers_bulk_delete` query. */
export const BulkDeleteQuery = Type.Object(
  {
    subscriber_ids: Type.String({
      minLength: 1,
      maxLength: 100_000,
      description: 'Comma-separated subscriber ids',
    }),
    subscription_list_id: Type.Optional(Type.String({ maxLength: 40 })),
  },
  { additionalProperties: true },
);

/** `POST /subscribers/<id>/subscribe` and `/unsubscribe`. */
export const MembershipBody = Type.Object(
  { subscription_list_id: Type.Optional(IdValue) },
  { additionalProperties: true },
);

/** Path of one subscriber. */
export const SubscriberParams = Type.Object({ id: Type.String() }, { additionalProperties: true });
