/** Request and response schemas of the campaign mailing routes. Field contents are checked by the service, which names the field. */
import { Type } from '@sinclair/typebox';
import { IdValue, IntId, Uuid } from '../lists/lists.schemas.ts';
import { CAMPAIGN_COUNTER_SCHEMA } from '../counters.ts';
import { MAILING_ORDERS } from './mailings.repository.ts';
import { BlockDocumentAnswer, BlockDocumentInput } from '../../mail/blocks/blocks.schemas.ts';

const NullableString = Type.Union([Type.String(), Type.Null()]);

/** Attributes of every mailing answer (spec 2.11, with the editor type). */
const Attributes = {
  subject: Type.String(),
  template_type: Type.String({
    description: 'The editor the mailing was authored in: html, quill, bee, text, ...',
  }),
  created_at: Type.String(),
  updated_at: Type.String(),
  ...CAMPAIGN_COUNTER_SCHEMA,
};

/** A mailing in the list. */
export const MailingItem = Type.Object({
  id: IntId,
  uuid: Uuid,
  type: Type.Literal('campaign_mailing'),
  attributes: Type.Object(Attributes),
});

/** One mailing with its content and sender: the answer of a fetch, a create and a change. */
export const MailingFull = Type.Object({
  id: IntId,
  uuid: Uuid,
  type: Type.Literal('campaign_mailing'),
  attributes: Type.Object({
    ...Attributes,
    html_part: NullableString,
    text_part: NullableString,
    from_email: NullableString,
    from_name: NullableString,
    content_blocks: BlockDocumentAnswer,
  }),
});

/** `GET /campaign_mailings` query. */
export const MailingsQuery = Type.Object(
  {
    search: Type.Optional(
      Type.String({
        maxLength: 200,
        description: 'A regular expression matched against the subject, letter case ignored',
      }),
    ),
    template_type: Type.Optional(
      Type.String({ maxLength: 32, description: 'Only mailings authored in this editor' }),
    ),
    order_by: Type.Union(
      MAILING_ORDERS.map((o) => Type.Literal(o)),
      { default: 'created_at' },
    ),
    order: Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'desc' }),
    items: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
    pagination: Type.Boolean({
      default: true,
      description: '`false` answers every matching mailing in one response',
    }),
  },
  { additionalProperties: true },
);

/** The mailing fields of a create or a change (a change may send any of them alone). */
const MailingFields = {
  subject: Type.String({ maxLength: 10_000 }),
  html_part: Type.String(),
  text_part: Type.String(),
  template_type: Type.String({ maxLength: 100 }),
  from_email: Type.String({ maxLength: 320 }),
  from_name: Type.String({ maxLength: 1000 }),
  from: Type.String({
    maxLength: 1000,
    description: '`Name <address>`: an alternative to from_email and from_name',
  }),
  content_blocks: BlockDocumentInput,
};

/** `POST /campaign_mailings`. */
export const CreateBody = Type.Object(
  {
    campaign_mailing: Type.Object(
      {
        subject: MailingFields.subject,
        html_part: Type.Optional(MailingFields.html_part),
        text_part: Type.Optional(MailingFields.text_part),
        template_type: Type.Optional(MailingFields.template_type),
        from_email: Type.Optional(MailingFields.from_email),
        from_name: Type.Optional(MailingFields.from_name),
        from: Type.Optional(MailingFields.from),
        content_blocks: Type.Optional(MailingFields.content_blocks),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true },
);

/** `PATCH` and `PUT /campaign_mailings/<id>`: only the fields sent change. */
export const ChangeBody = Type.Object(
  { campaign_mailing: Type.Partial(Type.Object(MailingFields, { additionalProperties: true })) },
  { additionalProperties: true },
);

/** `DELETE /campaign_mailings_bulk_delete` ids, in the query or the JSON body: an array, or a comma-separated string. */
const MailingIds = Type.Union(
  [Type.String({ maxLength: 100_000 }), Type.Array(IdValue, { maxItems: 10_000 })],
  {
    description: 'Campaign mailing ids, as an array or comma-separated',
  },
);
export const BulkDeleteIds = Type.Object(
  { campaign_mailing_ids: Type.Optional(MailingIds), 'campaign_mailing_ids[]': Type.Optional(MailingIds) },
  { additionalProperties: true },
);

/** `GET /campaign_mailings/<id>/send_test_email` query. */
export const TestEmailQuery = Type.Object(
  { to_email: Type.String({ minLength: 1, maxLength: 320, description: 'The address the preview goes to' }) },
  { additionalProperties: true },
);

/** Path of one mailing. */
export const MailingParams = Type.Object({ id: Type.String() }, { additionalProperties: true });
