/** Account routes under both marketing prefixes: `GET /current_customer` and `/subscriber_custom_field_types[/<id>]`. */
import { Type } from '@sinclair/typebox';
import type { TypedApp } from '../../http/typed.ts';
import type { AppContext } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { MARKETING_PREFIXES } from '../ids.ts';
import { ListParams } from '../lists/lists.schemas.ts';
import { MARKETING_ERRORS, marketingSchemaBase } from '../routes-common.ts';
import { currentCustomerOf } from './account.service.ts';
import { createFieldType, fieldTypesOf, renameFieldTypeOf } from '../subscribers/field-types.service.ts';

const Customer = Type.Object({
  id: Type.String(),
  type: Type.Literal('customer'),
  attributes: Type.Object({ username: Type.String(), created_at: Type.String() }),
});
const FieldType = Type.Object({
  id: Type.String(),
  type: Type.Literal('subscriber_custom_field_type'),
  attributes: Type.Object({ name: Type.String(), created_at: Type.String() }),
});
const Name = Type.String({ maxLength: 1000 });
/** Clients send `{subscriber_custom_field_type: {name}}` or `{name}`. */
const FieldTypeBody = Type.Object(
  {
    name: Type.Optional(Name),
    subscriber_custom_field_type: Type.Optional(Type.Object({ name: Name }, { additionalProperties: true })),
  },
  { additionalProperties: true },
);
const nameOf = (b: { name?: string; subscriber_custom_field_type?: { name: string } }) =>
  b.subscriber_custom_field_type?.name ?? b.name ?? '';
const one = { 200: Type.Object({ data: FieldType }), ...MARKETING_ERRORS };

/** Registers the account routes. */
export function accountRoutes(app: TypedApp, ctx: AppContext): void {
  const customerOf = (req: Parameters<typeof principalOf>[0]) => principalOf(req, 'marketing').customerId;
  for (const prefix of MARKETING_PREFIXES) {
    const common = marketingSchemaBase(prefix);
    app.get(
      `${prefix}/current_customer`,
      {
        schema: {
          ...common,
          summary: 'The account the key belongs to',
          response: { 200: Type.Object({ data: Customer }), ...MARKETING_ERRORS },
        },
      },
      (req) => currentCustomerOf(ctx, customerOf(req)),
    );
    const base = `${prefix}/subscriber_custom_field_types`;
    app.get(
      base,
      {
        schema: {
          ...common,
          summary: 'Subscriber custom field types',
          response: { 200: Type.Object({ data: Type.Array(FieldType) }), ...MARKETING_ERRORS },
        },
      },
      async (req) => ({ data: await fieldTypesOf(ctx, customerOf(req)) }),
    );
    app.post(
      base,
      {
        schema: {
          ...common,
          summary: 'Create a subscriber custom field type',
          body: FieldTypeBody,
          response: one,
        },
      },
      async (req) => ({
        data: await createFieldType(ctx, customerOf(req), nameOf(req.body)),
      }),
    );
    app.patch(
      `${base}/:id`,
      {
        schema: {
          ...common,
          summary: 'Rename a subscriber custom field type',
          params: ListParams,
          body: FieldTypeBody,
          response: one,
        },
      },
      async (req) => ({
        data: await renameFieldTypeOf(ctx, customerOf(req), req.params.id, nameOf(req.body)),
      }),
    );
  }
}
