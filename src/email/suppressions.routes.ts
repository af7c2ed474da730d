/** Routes of the suppression list: GET /v1/email/suppressions, GET and DELETE /v1/email/suppressions/<address>. */
import { Type } from '@sinclair/typebox';
import type { TypedApp } from '../http/typed.ts';
import type { AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { errorResponses } from '../mail/error-body.ts';
import { oneSuppression, removeSuppression, suppressionPage } from '../accounts/suppressions.service.ts';

const Suppression = Type.Object({
  address: Type.String({ examples: ['patient@example.org'] }),
  reason: Type.Union([Type.Literal('hard_bounce'), Type.Literal('complaint'), Type.Literal('manual')]),
  detail: Type.String({ examples: ['550 5.1.1 <patient@example.org>: user unknown'] }),
  sourceTrackingId: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ examples: ['2026-01-31T12:00:00.000Z'] }),
});
const AddressParam = Type.Object({
  address: Type.String({ minLength: 1, maxLength: 320, description: 'the suppressed email address' }),
});
const errors = errorResponses(400, 401, 403, 404, 429);
const tags = ['email'];
const security: { [name: string]: string[] }[] = [{ bearer: [] }, { token: [] }];

/** Registers the suppression routes. */
export function suppressionRoutes(app: TypedApp, ctx: AppContext): void {
  app.get(
    '/v1/email/suppressions',
    {
      schema: {
        tags,
        security,
        operationId: 'listSuppressions',
        summary: "List the account's suppressed addresses, newest first",
        querystring: Type.Object({
          page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
          per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
        }),
        response: { 200: Type.Object({ suppressions: Type.Array(Suppression) }), ...errors },
      },
    },
    (req) => suppressionPage(ctx, principalOf(req, 'email').customerId, req.query.page, req.query.per_page),
  );
  app.get(
    '/v1/email/suppressions/:address',
    {
      schema: {
        tags,
        security,
        operationId: 'getSuppression',
        summary: 'Read why an address is suppressed',
        params: AddressParam,
        response: { 200: Suppression, ...errors },
      },
    },
    (req) => oneSuppression(ctx, principalOf(req, 'email').customerId, req.params.address),
  );
  app.delete(
    '/v1/email/suppressions/:address',
    {
      schema: {
        tags,
        security,
        operationId: 'deleteSuppression',
        summary: 'Remove an address from the suppression list, so mail to it is attempted again',
        params: AddressParam,
        response: { 200: Type.Object({ message: Type.String() }), ...errors },
      },
    },
    (req) => removeSuppression(ctx, principalOf(req, 'email').customerId, req.params.address),
  );
}
