/** Request and response schemas of the forms routes. form_json is checked by the component registry, which names the problem. */
import { Type, type Static } from '@sinclair/typebox';

/** The prefixes the forms interface is reachable under. */
export const FORMS_PREFIXES = ['/v1/forms', '/forms'] as const;

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const FormJson = Type.Unknown({
  description: 'An object with a `body` array of components (see docs/forms.md)',
});

/** A form with every field. */
export const Form = Type.Object({
  id: Type.String({ format: 'uuid' }),
  title: Type.String(),
  description: Nullable(Type.String()),
  form_json: FormJson,
  form_html: Type.String(),
  form_css: Type.String(),
  vanity_url: Nullable(Type.String()),
  version: Type.Integer(),
  active: Type.Boolean(),
  customer_id: Type.Integer(),
  number: Type.Integer({ description: 'Integer number of the form; a copy names it as its `old_form_id`' }),
  old_form_id: Type.Union([Type.Integer(), Type.Null()], {
    description: '`number` of the form this one was copied from',
  }),
  recipient: Type.String(),
  signable: Type.Boolean(),
  signature_confirmation_label: Nullable(Type.String()),
  submission_count: Type.Integer(),
  type: Nullable(Type.String()),
  subscription_list_id: Nullable(Type.String()),
  deleted: Type.Boolean(),
  archived: Type.Boolean(),
  created_at: Type.String(),
  updated_at: Type.String(),
});
export type Form = Static<typeof Form>;

/** The public subset of a form. */
export const PublicForm = Type.Pick(Form, [
  'id',
  'title',
  'description',
  'form_json',
  'form_html',
  'form_css',
  'active',
  'customer_id',
  'signable',
  'submission_count',
  'created_at',
  'updated_at',
]);
export type PublicForm = Static<typeof PublicForm>;

const editable = {
  description: Type.Optional(Type.String({ maxLength: 10_000 })),
  form_html: Type.Optional(Type.String({ maxLength: 1_000_000 })),
  form_css: Type.Optional(Type.String({ maxLength: 200_000 })),
  version: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647 })),
  recipient: Type.Optional(
    Type.String({ maxLength: 5_000, description: 'Comma-separated notification addresses' }),
  ),
  subscription_list_id: Type.Optional(Type.String({ maxLength: 100 })),
  type: Type.Optional(
    Type.String({ maxLength: 100, description: '`marketing_form` feeds subscription_list_id' }),
  ),
  active: Type.Optional(Type.Boolean()),
  signable: Type.Optional(Type.Boolean()),
  signature_confirmation_label: Type.Optional(Type.String({ maxLength: 1_000 })),
  vanity_url: Type.Optional(Type.String({ maxLength: 200 })),
};

/** `POST /api/forms`. */
export const CreateBody = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 500 }),
  form_json: Type.Optional(FormJson),
  customer_id: Type.Optional(Type.Integer()),
  ...editable,
});
export type CreateBody = Static<typeof CreateBody>;

/** `PUT /api/forms/<id>`: any subset of the create fields. */
export const UpdateBody = Type.Object({
  title: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  form_json: Type.Optional(FormJson),
  customer_id: Type.Optional(Type.Integer()),
  ...editable,
});
export type UpdateBody = Static<typeof UpdateBody>;

/** `POST /api/forms/copy`. */
export const CopyBody = Type.Object({
  form_id: Type.String({ minLength: 1 }),
  title: Type.String({ minLength: 1, maxLength: 500 }),
});
export type CopyBody = Static<typeof CopyBody>;

/** `GET /api/forms` query. */
export const ListQuery = Type.Object({
  customer_id: Type.Optional(
    Type.Integer({ description: 'Defaults to the account of the key; another account gives 403' }),
  ),
  form_id: Type.Optional(Type.String()),
  search: Type.Optional(Type.String({ maxLength: 200 })),
  archived: Type.Optional(Type.Boolean()),
  active: Type.Optional(Type.Boolean()),
  order_by: Type.Optional(
    Type.String({ description: 'created_at, title, updated_at or submission_count; others mean created_at' }),
  ),
  order: Type.Optional(Type.String({ description: 'asc or desc (default)' })),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
  items: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
});
export type ListQuery = Static<typeof ListQuery>;

/** `GET /api/forms` answer. */
export const ListResponse = Type.Object({
  results: Type.Array(Form),
  page_info: Type.Object({
    count: Type.Integer(),
    pages: Type.Integer(),
    page: Type.Integer(),
    items: Type.Integer(),
  }),
});

/** `GET /api/forms/stats`. */
export const StatsQuery = Type.Object({ customer_id: Type.Optional(Type.Integer()) });
export const Stats = Type.Object({
  active_form_count: Type.Integer(),
  total_submission_count: Type.Integer(),
  submissions_last_7_days: Type.Integer(),
});
export type Stats = Static<typeof Stats>;

export const IdParam = Type.Object({ id: Type.String() });
export const SubmissionParams = Type.Object({ id: Type.String(), submission_id: Type.String() });
export const Detail = Type.Object({ detail: Type.String() });
export const UpdateResponse = Type.Object({ detail: Type.String(), form_id: Type.String() });

/** `POST /api/forms/<id>/submissions`. */
export const SubmissionBody = Type.Object({
  form_data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  attachments: Type.Optional(
    Type.Array(
      Type.Object({
        name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
        fileName: Type.Optional(
          Type.String({ minLength: 1, maxLength: 255, description: 'Alias of `name`' }),
        ),
        content: Type.String(),
        field_name: Type.Optional(Type.String()),
      }),
      { maxItems: 20 },
    ),
  ),
});
export type SubmissionBody = Static<typeof SubmissionBody>;

/** `GET /api/forms/<id>/submissions` query. */
export const SubmissionsQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
  items: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  order_by: Type.Optional(
    Type.String({
      description:
        'created_at (default) or submitter_email (addresses case-insensitively, none last; page × items at most 10000)',
    }),
  ),
  order: Type.Optional(Type.String({ description: 'asc or desc (default)' })),
  submission_id: Type.Optional(Type.String({ maxLength: 100, description: 'Only this submission' })),
});
export type SubmissionsQuery = Static<typeof SubmissionsQuery>;

/** One submission record; `form_data` is a JSON string. */
export const SubmissionRecord = Type.Object({
  id: Type.String(),
  form_id: Type.String(),
  form_version: Type.Integer(),
  form_data: Type.String(),
  submitter_email: Nullable(
    Type.String({ description: "The value of the form's email field, null when it has none" }),
  ),
  attachments: Type.Array(
    Type.Object({
      field_name: Type.String(),
      name: Type.String(),
      content_type: Type.String(),
      size: Type.Integer(),
    }),
  ),
  signed: Type.Boolean(),
  created_at: Type.String(),
});
export type SubmissionRecord = Static<typeof SubmissionRecord>;

export const SubmissionsResponse = Type.Object({
  data: Type.Array(SubmissionRecord),
  total: Type.Integer(),
  page: Type.Integer(),
  items: Type.Integer(),
});
