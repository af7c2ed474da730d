/** Request and response schemas of dynamic lists and of `GET /lists`. */
import { IntId, Uuid } from '../lists/lists.schemas.ts';
import { Type } from '@sinclair/typebox';
import { LIST_ORDER, listIndexQuery } from '../list-query.ts';

const Filters = Type.Unknown({
  description:
    'An array of groups (OR), each an array of conditions {field, op, terms} (AND); see docs/marketing.md',
});

/** A dynamic list in its envelope. */
export const DynamicList = Type.Object({
  id: Uuid,
  type: Type.Literal('dynamic_list'),
  attributes: Type.Object({
    name: Type.String(),
    filters: Filters,
    created_at: Type.String(),
    updated_at: Type.String(),
    subscriber_count: Type.Optional(
      Type.Integer({ description: 'Subscribers matching now (one read, and lists with with_stats)' }),
    ),
  }),
});

/** `POST /dynamic_lists`. */
export const CreateDynamicListBody = Type.Object(
  { name: Type.String({ maxLength: 1000 }), filters: Type.Optional(Filters) },
  { additionalProperties: true },
);

/** `PATCH /dynamic_lists/<id>`. */
export const ChangeDynamicListBody = Type.Object(
  { name: Type.Optional(Type.String({ maxLength: 1000 })), filters: Type.Optional(Filters) },
  { additionalProperties: true },
);

/** List queries: optional pages and counts, a search on the name and a sort. */
export const DynamicListsQuery = listIndexQuery(LIST_ORDER, {
  with_stats: Type.Optional(Type.Boolean({ description: 'Count the members of each dynamic list' })),
});

/** One entry of `GET /lists`: a subscription list or a dynamic list. */
export const AnyList = Type.Object({
  id: Type.Union([IntId, Uuid], {
    description: 'A subscription list: its integer id; a dynamic list: its UUID',
  }),
  uuid: Type.Optional(Uuid),
  type: Type.Union([Type.Literal('subscription_list'), Type.Literal('dynamic_list')]),
  attributes: Type.Object(
    { name: Type.String(), subscriber_count: Type.Optional(Type.Integer()) },
    { additionalProperties: true },
  ),
});
