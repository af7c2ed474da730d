/** Request and response schemas of the transactional email surface (spec 2.5–2.7, 4.2). */
import { Type, type Static } from '@sinclair/typebox';

const Addresses = Type.Array(Type.String({ minLength: 1 }), { minItems: 1 });

/** The Attachment object. */
export const Attachment = Type.Object({
  fileName: Type.String({ minLength: 1 }),
  contentType: Type.String({ minLength: 1 }),
  content: Type.String({ minLength: 1 }),
});

/** Headers: subject and from required, reply-to optional, plus X- custom headers and List-Unsubscribe(-Post). */
export const Headers = Type.Object(
  {
    subject: Type.String({ minLength: 1 }),
    from: Type.String({ minLength: 1 }),
    'reply-to': Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

const MessageOptions = {
  recipients: Addresses,
  bcc: Type.Optional(Addresses),
  cc: Type.Optional(Addresses),
  headers: Headers,
  attachments: Type.Optional(Type.Array(Attachment)),
  allowNonTLS: Type.Optional(Type.Boolean()),
  forceSecureNotification: Type.Optional(Type.Boolean()),
};

/** The `data.message` object of a send (spec 2.5). */
export const Message = Type.Object(
  {
    ...MessageOptions,
    content: Type.Object({
      'text/plain': Type.Optional(Type.String()),
      'text/html': Type.Optional(Type.String()),
    }),
  },
  { additionalProperties: true },
);
export type MessageBody = Static<typeof Message>;

/** The message part of a templated send: no content (an empty `content: {}` is tolerated). */
export const TemplatedMessage = Type.Object(MessageOptions, { additionalProperties: true });
export type TemplatedMessageBody = Static<typeof TemplatedMessage>;

const Tracking = {
  override_open_tracking: Type.Optional(Type.Boolean()),
  override_link_tracking: Type.Optional(Type.Boolean()),
  unsubscribe_url: Type.Optional(Type.String()),
};

export const SendBody = Type.Object({ data: Type.Object({ message: Message, ...Tracking }) });
export type SendBody = Static<typeof SendBody>;

export const BulkBody = Type.Object({
  data: Type.Object({ messages: Type.Array(Message, { minItems: 1 }), ...Tracking }),
});
export type BulkBody = Static<typeof BulkBody>;

export const TemplatedBody = Type.Object({
  data: Type.Object({
    template_name: Type.String({ minLength: 1 }),
    template_values: Type.Optional(Type.String()),
    message: TemplatedMessage,
    ...Tracking,
  }),
});
export type TemplatedBody = Static<typeof TemplatedBody>;

/** The send response. */
export const SendResponse = Type.Object({
  sourceTrackingId: Type.String(),
  customHeaders: Type.Optional(Type.Record(Type.String(), Type.String())),
  data: Type.String(),
});
export type SendResponse = Static<typeof SendResponse>;

export const BulkResponse = Type.Object({ messages: Type.Array(SendResponse) });

/** Receipt (spec 2.6). */
export const Receipt = Type.Object({
  sourceTrackingId: Type.String(),
  data: Type.Object({
    message: Type.Object({
      id: Type.String(),
      message_deliveries: Type.Array(
        Type.Object({
          recipient: Type.String(),
          status: Type.Object({
            deliveryStatus: Type.String(),
            deliveryTime: Type.Union([Type.String(), Type.Null()]),
            openedStatus: Type.String(),
            openedTime: Type.Union([Type.String(), Type.Null()]),
            reason: Type.Optional(
              Type.String({
                description: 'Only when `deliveryStatus` is `suppressed`: why the address was not sent to.',
              }),
            ),
          }),
        }),
      ),
      total_opens: Type.Integer(),
      distinct_opens: Type.Integer(),
      total_click_count: Type.Integer(),
      clicks_per_link: Type.Array(Type.Object({ click_count: Type.Integer(), target_url: Type.String() })),
      unsubscribed: Type.Boolean(),
    }),
  }),
});
export type Receipt = Static<typeof Receipt>;

/** When to send: required, but checked by the service so that every problem with it has its own error code. */
const ScheduledAt = Type.Optional(
  Type.Unknown({
    description: 'RFC 3339 date-time with a time zone, in the future and at most 30 days ahead (required)',
  }),
);

/** `POST /schedule`: a message as for `POST /messages`, plus `data.scheduled_at` (checked by the service, so every problem with it has its own code). */
export const ScheduleBody = Type.Object({
  data: Type.Object({ message: Message, scheduled_at: ScheduledAt, ...Tracking }),
});
export type ScheduleBody = Static<typeof ScheduleBody>;

/** `PATCH /schedule/<id>`: the new time. */
export const RescheduleBody = Type.Object({ scheduled_at: ScheduledAt });
export type RescheduleBody = Static<typeof RescheduleBody>;

const Time = Type.Union([Type.String(), Type.Null()]);

/** A scheduled message as every schedule route answers it: its state and times, never its content. */
export const ScheduledMessage = Type.Object({
  sourceTrackingId: Type.String(),
  state: Type.Union(
    ['scheduled', 'sent', 'cancelled', 'failed'].map((s) => Type.Literal(s)),
    { description: 'scheduled, then sent (handed to delivery: read its receipt), cancelled or failed' },
  ),
  scheduledAt: Type.String({ description: 'RFC 3339 UTC' }),
  data: Type.String({ description: 'A status text' }),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  sentAt: Time,
  cancelledAt: Time,
  errorCode: Time,
});
export type ScheduledMessage = Static<typeof ScheduledMessage>;
