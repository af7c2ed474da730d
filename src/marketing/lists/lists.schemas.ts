/** Request and response schemas of the subscription list routes. */
import { Type } from '@sinclair/typebox';

/** A marketing id as clients send it: a string or a number. */
export const IdValue = Type.Union([Type.String({ maxLength: 40 }), Type.Integer()], {
  description: 'The integer id or the UUID; a number-looking string is the integer',
});

/** A marketing object's UUID as answered (RFC 9562): the `id` of subscribers, dynamic lists and drips. */
export const Uuid = Type.String({ format: 'uuid' });

/** A marketing object's UUID as answered, or null. */
export const NullableUuid = Type.Union([Uuid, Type.Null()]);

/** The integer id of a subscription list, campaign mailing or campaign mailing send as answered. */
export const IntId = Type.Integer({ minimum: 1 });

/** An integer id as answered, or null. */
export const NullableIntId = Type.Union([IntId, Type.Null()]);

/** A subscription list in its envelope (spec 2.8). */
export const SubscriptionList = Type.Object({
  id: IntId,
  uuid: Uuid,
  type: Type.Literal('subscription_list'),
  attributes: Type.Object({
    name: Type.String(),
    is_default: Type.Boolean(),
    subscriber_count: Type.Integer(),
    form_id: Type.Union([Type.String(), Type.Null()], {
      description: 'The form whose respondents join this list, if any',
    }),
    double_opt_in: Type.Boolean({
      description: 'New members must confirm by email before they receive campaigns',
    }),
    public: Type.Boolean({ description: "Offered on subscribers' preference page" }),
  }),
});

/** `PATCH /subscription_lists/<id>/settings`: absent settings stay. */
export const ListSettingsBody = Type.Object(
  {
    double_opt_in: Type.Optional(Type.Boolean()),
    confirm_from_email: Type.Optional(
      Type.String({ maxLength: 320, description: 'From address of confirmation emails (a verified domain)' }),
    ),
    public: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** `POST /subscription_lists` and `PATCH /subscription_lists/<id>`. */
export const ListBody = Type.Object(
  { name: Type.String({ maxLength: 1000, description: 'Must not be `default` (in any letter case)' }) },
  { additionalProperties: true },
);

/** Path of one list (the username, when present, is checked by authentication). */
export const ListParams = Type.Object({ id: Type.String() }, { additionalProperties: true });

/** The empty object answered by deletes. */
export const Empty = Type.Object({}, { additionalProperties: false });
