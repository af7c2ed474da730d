/** Request and response schemas of the webhook endpoint routes. Event names and URLs are checked by the service, which names the problem. */
import { Type, type Static } from '@sinclair/typebox';
import { WEBHOOK_EVENTS } from './events.ts';

const eventsDoc = `Event names: ${WEBHOOK_EVENTS.join(', ')}`;

/** `POST /webhook_endpoints`. */
export const EndpointBody = Type.Object(
  {
    target_url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'An http or https URL on a public address',
    }),
    events: Type.Array(Type.String(), { minItems: 1, maxItems: 16, description: eventsDoc }),
    signing_key: Type.Optional(
      Type.String({ description: 'The secret deliveries are signed with; generated when absent' }),
    ),
    active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type EndpointBody = Static<typeof EndpointBody>;

/** `PATCH /webhook_endpoints/<id>`. */
export const EndpointPatchBody = Type.Object(
  {
    target_url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    events: Type.Optional(Type.Array(Type.String(), { minItems: 1, maxItems: 16, description: eventsDoc })),
    signing_key: Type.Optional(
      Type.String({
        description: 'A new signing secret; the current one keeps signing beside it until retired',
      }),
    ),
    rotate_signing_key: Type.Optional(
      Type.Boolean({ description: 'Generate a new signing secret (shown in this answer only)' }),
    ),
    retire_previous_signing_key: Type.Optional(
      Type.Boolean({ description: 'Stop signing with the previous secret' }),
    ),
    active: Type.Optional(
      Type.Boolean({
        description: 'false switches the endpoint off; true switches it on and clears a disable',
      }),
    ),
  },
  { additionalProperties: false },
);
export type EndpointPatchBody = Static<typeof EndpointPatchBody>;

/** `POST /webhook_endpoints/<id>/replay`. */
export const ReplayBody = Type.Object(
  {
    since: Type.Optional(Type.String({ description: 'Replay events at or after this ISO 8601 time' })),
    until: Type.Optional(Type.String({ description: 'and before this one' })),
    event_ids: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), {
        maxItems: 1000,
        description: 'Replay these events (payload.id)',
      }),
    ),
    after_event_id: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Continue a truncated replay after this event id' }),
    ),
  },
  { additionalProperties: false },
);
export type ReplayBody = Static<typeof ReplayBody>;

/** An endpoint as returned. `signing_key` only in the answer that created or set it. */
export const Endpoint = Type.Object({
  id: Type.String(),
  target_url: Type.String(),
  events: Type.Array(Type.String()),
  active: Type.Boolean(),
  disabled_at: Type.Union([Type.String(), Type.Null()]),
  disabled_reason: Type.Union([Type.String(), Type.Null()]),
  failure_streak: Type.Integer(),
  previous_signing_key_active: Type.Boolean(),
  created_at: Type.String(),
  updated_at: Type.String(),
  signing_key: Type.Optional(Type.String()),
});

export const ReplayResponse = Type.Object({
  replayed: Type.Integer(),
  already_pending: Type.Integer(),
  last_event_id: Type.Union([Type.Integer(), Type.Null()]),
  truncated: Type.Boolean(),
});

export const Attempt = Type.Object({
  id: Type.Integer(),
  event_id: Type.Integer(),
  event_name: Type.String(),
  source_tracking_id: Type.String(),
  sealpost_event_id: Type.String(),
  attempt: Type.Integer(),
  status_code: Type.Union([Type.Integer(), Type.Null()]),
  latency_ms: Type.Integer(),
  response_excerpt: Type.Union([Type.String(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  delivery_state: Type.String(),
  created_at: Type.String(),
});

export const IdParam = Type.Object({ id: Type.String() }, { additionalProperties: true });
export const AttemptsQuery = Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 1000, default: 50 }) });
