/** `GET /captured_messages`: what the capture transport kept for this account, under every email prefix. */
import { Type } from '@sinclair/typebox';
import type { TypedApp } from '../http/typed.ts';
import type { AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { ErrorResponse } from '../mail/error-body.ts';
import { EMAIL_PREFIXES } from '../mail/prefixes.ts';
import { capturedOfAccount } from './captured.service.ts';

const Captured = Type.Object({
  id: Type.Integer(),
  sourceTrackingId: Type.String(),
  recipient: Type.Union([Type.String(), Type.Null()]),
  envelope_from: Type.String(),
  envelope_to: Type.String(),
  raw: Type.Union([Type.String(), Type.Null()], {
    description: 'The MIME text; null once retention purged it',
  }),
  created_at: Type.String(),
});

const Query = Type.Object({
  sourceTrackingId: Type.Optional(Type.String({ minLength: 1 })),
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
});

const errors = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse };

/** Registers the capture store reader. */
export function capturedRoutes(app: TypedApp, ctx: AppContext): void {
  for (const prefix of EMAIL_PREFIXES) {
    app.get(
      `${prefix}/captured_messages`,
      {
        config: {
          audit: {
            action: 'captured.read',
            target: 'account:{account}',
            items: { field: 'captured', id: 'sourceTrackingId' },
          },
          protectedContent: 'captured.read',
        },
        schema: {
          hide: prefix === '/v1',
          tags: ['email'],
          security: [{ bearer: [] }, { token: [] }],
          summary: 'Messages the capture transport kept instead of sending (newest first)',
          querystring: Query,
          response: { 200: Type.Object({ captured: Type.Array(Captured) }), ...errors },
        },
      },
      async (req) => ({
        captured: await capturedOfAccount(ctx, principalOf(req, 'email').customerId, {
          sourceTrackingId: req.query.sourceTrackingId,
          limit: req.query.limit,
        }),
      }),
    );
  }
}
