/** Request and response schemas of the drip campaign routes (spec 2.10). */
import { Type } from '@sinclair/typebox';
import { IdValue, NullableIntId, Uuid } from '../lists/lists.schemas.ts';

const attributes = {
  name: Type.String(),
  subscription_list_id: NullableIntId,
  subscription_list_name: Type.String(),
  state: Type.String({ description: 'draft, active or paused' }),
  created_at: Type.String(),
  updated_at: Type.String(),
  start_trigger: Type.String({ description: 'subscription or form_submission' }),
  subscriber_count: Type.Integer({ description: 'Subscribers ever enrolled' }),
  subscriber_completed_count: Type.Integer({ description: 'Enrolled subscribers who reached an end node' }),
};

/** A drip in the list: without the graph fields. */
export const DripShort = Type.Object({
  id: Uuid,
  type: Type.Literal('drip_campaign'),
  attributes: Type.Object(attributes),
});

/** One drip with the graph fields. */
export const DripFull = Type.Object({
  id: Uuid,
  type: Type.Literal('drip_campaign'),
  attributes: Type.Object({
    ...attributes,
    drip_campaign_nodes: Type.String({
      description: 'JSON text {"nodes": [...], "edges": [...]} (docs/drips.md)',
    }),
    drip_campaign_tree_blob: Type.String({
      description: 'JSON text: the start node and each node with its successors',
    }),
  }),
});

const NullableText = (maxLength: number, description?: string) =>
  Type.Optional(Type.Union([Type.String({ maxLength, ...(description && { description }) }), Type.Null()]));

/** `POST /drip_campaigns` and `PUT /drip_campaigns/<id>`. */
export const DripBody = Type.Object(
  {
    drip_campaign: Type.Object(
      {
        name: Type.Optional(Type.String({ maxLength: 1000 })),
        subscription_list_id: Type.Optional(Type.Union([IdValue, Type.Null()])),
        start_trigger: NullableText(100, 'subscription or form_submission'),
        drip_campaign_nodes: NullableText(1_000_000, 'JSON text {"nodes": [...], "edges": [...]}'),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true },
);

/** `GET /drip_campaigns` query. */
export const DripsQuery = Type.Object(
  {
    search: Type.Optional(
      Type.String({
        maxLength: 200,
        description: 'A regular expression matched against the name, letter case ignored',
      }),
    ),
    order_by: Type.Union(
      [Type.Literal('created_at'), Type.Literal('updated_at'), Type.Literal('name'), Type.Literal('state')],
      {
        default: 'created_at',
      },
    ),
    order: Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'desc' }),
    page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
    items: Type.Integer({ minimum: 1, maximum: 1000, default: 50 }),
  },
  { additionalProperties: true },
);

/** Path of one drip. */
export const DripParams = Type.Object({ id: Type.String() }, { additionalProperties: true });

/** `POST /drip_campaigns/<id>/start`. */
export const StartResponse = Type.Object({ data: Type.Object({ jids: Type.Array(Type.String()) }) });

/** `POST /drip_campaigns/<id>/pause`. */
export const PauseResponse = Type.Object({
  data: Type.Object({ drip_campaign_id: Uuid, status: Type.String() }),
});
