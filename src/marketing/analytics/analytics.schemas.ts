/** Request and response schemas of the tracking link and analytics routes. */
import { IntId, Uuid } from '../lists/lists.schemas.ts';
import { Type, type TSchema } from '@sinclair/typebox';

/** One of a fixed set of strings, with a default: validated as an enum, so a wrong value gives one clear problem. */
function oneOf<const T extends readonly string[]>(values: T, def: T[number], description?: string) {
  return Type.Unsafe<T[number]>({
    type: 'string',
    enum: [...values],
    default: def,
    ...(description && { description }),
  });
}

/** A query object: listed parameters validated, other parameters ignored (clients send extras). */
const query = <P extends Record<string, TSchema>>(props: P) =>
  Type.Object(props, { additionalProperties: true });

const SendId = Type.String({
  maxLength: 40,
  description: 'A campaign mailing send id (the `id` of a sends table row)',
});
const Paging = {
  items: Type.Integer({ minimum: 1, maximum: 1000, default: 50 }),
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
};
const Direction = oneOf(['asc', 'desc'] as const, 'desc');
const NullableString = Type.Union([Type.String(), Type.Null()]);

/** Sort keys of each list. */
export const TRACKING_LINK_ORDER = ['created_at', 'clicked', 'target_url', 'html_id', 'opened_at'] as const;
export const SENDS_TABLE_ORDER = [
  'created_at',
  'sent_at',
  'campaign_mailing_created_at',
  'subscription_list_name',
  'subject',
] as const;
export const UNIQUE_LINK_ORDER = ['created_at', 'html_id', 'target_url', 'clicked'] as const;
export const LINK_SUBSCRIBER_ORDER = [
  'created_at',
  'updated_at',
  'email',
  'first_name',
  'last_name',
] as const;
export const DELIVERIES_TABLE_ORDER = ['created_at', 'recipient'] as const;

/** `GET /tracking_links` query. */
export const TrackingLinksQuery = query({
  campaign_mailing_send_id: Type.Optional(SendId),
  campaign_mailing_delivery_id: Type.Optional(
    Type.String({ maxLength: 40, description: 'One email of a campaign or drip' }),
  ),
  order_by: oneOf(TRACKING_LINK_ORDER, 'created_at'),
  order: Direction,
  ...Paging,
});

/** `GET /analytics/campaign_mailing_sends_table` query. */
export const SendsTableQuery = query({
  search: Type.Optional(
    Type.String({
      maxLength: 500,
      description:
        '`Field:Value` (or a JSON object of fields): subscription_list_name, subject, id, campaign_mailing_id, marketing_email_id; a plain term (no colon) matches the subject or the list name',
    }),
  ),
  order_by: oneOf(SENDS_TABLE_ORDER, 'created_at'),
  order: Direction,
  ...Paging,
});

/** `GET /analytics/tracking_links_by_unique_link` query. */
export const UniqueLinksQuery = query({
  campaign_mailing_send_id: Type.String({ minLength: 1, maxLength: 40 }),
  order_by: oneOf(
    UNIQUE_LINK_ORDER,
    'created_at',
    '`created_at` is the position of the link in the email, as `html_id`',
  ),
  order: Direction,
  ...Paging,
});

/** `GET /analytics/subscribers_by_tracking_link` query. */
export const LinkSubscribersQuery = query({
  campaign_mailing_send_id: Type.String({ minLength: 1, maxLength: 40 }),
  html_id: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 1_000_000,
      description: 'Position of the link in the email, from 0; required unless tracking_link_id is 0',
    }),
  ),
  tracking_link_id: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 0,
      description: '0: subscribers who clicked any link of the send (links are otherwise named by html_id)',
    }),
  ),
  order_by: oneOf(LINK_SUBSCRIBER_ORDER, 'created_at'),
  order: Direction,
  ...Paging,
});

/** `GET /analytics/campaign_mailing_send_totals` query. */
export const TotalsQuery = query({
  campaign_mailing_send_id: Type.Optional(
    Type.String({ maxLength: 40, description: 'One send; the whole account when absent' }),
  ),
});

/** `GET /analytics/campaign_mailing_deliveries_table` query. */
export const DeliveriesTableQuery = query({
  campaign_mailing_send_id: Type.Optional(SendId),
  campaign_mailing_id: Type.Optional(
    Type.String({ maxLength: 40, description: 'Every delivery of a mailing, of its sends and drips' }),
  ),
  order_by: oneOf(DELIVERIES_TABLE_ORDER, 'created_at'),
  order: Direction,
  ...Paging,
});

/** A tracking link: one link of one email, once clicked (spec 2.13). */
export const TrackingLink = Type.Object({
  id: Type.String(),
  type: Type.Literal('tracking_link'),
  attributes: Type.Object({
    target_url: Type.String(),
    opened_at: NullableString,
    clicked: Type.Integer(),
    campaign_mailing_delivery_id: Uuid,
    html_id: Type.Integer(),
  }),
});

/** A row of the sends table (spec 2.12). */
export const SendsTableRow = Type.Object({
  id: IntId,
  uuid: Uuid,
  marketing_email_id: IntId,
  campaign_mailing_id: IntId,
  campaign_mailing_created_at: Type.String(),
  sent_at: Type.String(),
  subscription_list_name: Type.String(),
});

/** Clicks of one link position of a send. */
export const UniqueLinkRow = Type.Object({
  html_id: Type.Integer(),
  target_url: Type.String(),
  clicked: Type.Integer(),
});

/** A subscriber who clicked a link (spec 2.9, custom fields as `{subscriber_custom_field_type_id, value}`). */
export const LinkSubscriber = Type.Object({
  id: Uuid,
  type: Type.Literal('subscriber'),
  attributes: Type.Object({
    email: Type.String(),
    unsubscribed: Type.Boolean(),
    first_name: NullableString,
    last_name: NullableString,
    custom_fields: Type.Array(
      Type.Object({ subscriber_custom_field_type_id: Type.String(), value: Type.String() }),
    ),
  }),
});

/** Campaign totals (spec 2.14). */
export const Totals = Type.Object({
  delivered: Type.Integer(),
  viewed: Type.Integer(),
  clicked: Type.Integer(),
  bounced: Type.Integer(),
  soft_bounced: Type.Integer(),
  hard_bounced: Type.Integer(),
  unsubscribed: Type.Integer(),
  global_unsubscribed: Type.Integer(),
});

/** A row of the deliveries table: one email of a campaign. */
export const DeliveriesTableRow = Type.Object({
  id: Uuid,
  recipient: Type.String(),
  created_at: Type.String(),
  delivered: Type.Boolean(),
  viewed: Type.Boolean(),
  clicked: Type.Boolean(),
  bounced: Type.Boolean(),
  unsubscribed: Type.Boolean(),
  tracking_links: Type.Record(Type.String(), Type.String(), {
    description: 'Target URL → clicks in this email, as text',
  }),
});
