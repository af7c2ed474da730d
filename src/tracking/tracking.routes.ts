/** Public tracking routes: the open pixel `/t/o/<token>.gif` and the click redirect `/t/c/<token>`. No API key. */
import { Type } from '@sinclair/typebox';
import type { TypedApp } from '../http/typed.ts';
import type { AppContext } from '../context.ts';
import { ErrorResponse } from '../email/email.schemas.ts';
import { recordClick, recordOpen } from './tracking.service.ts';

/** A transparent 1x1 GIF. */
export const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/** Nothing here may be cached (every open and click must reach the server) or leak the token onward. */
export const NO_CACHE = {
  'cache-control': 'no-store, no-cache, must-revalidate, max-age=0',
  pragma: 'no-cache',
  expires: '0',
  'referrer-policy': 'no-referrer',
};

/** The GIF body, for the OpenAPI document (a Buffer is sent as is, never serialized). */
export const Gif = Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'A transparent 1x1 GIF' });

export const TokenParam = Type.Object({ token: Type.String() });

/** Registers the open pixel and the click redirect. */
export function trackingRoutes(app: TypedApp, ctx: AppContext): void {
  const tags = ['tracking'];
  app.get(
    '/t/o/:token',
    {
      // No HEAD twin: a scanner probing links with HEAD must not count as an open or a click.
      exposeHeadRoute: false,
      schema: {
        tags,
        summary: 'Open pixel: counts an open and answers a transparent 1x1 GIF',
        params: TokenParam,
        produces: ['image/gif'],
        response: { 200: Gif, 404: ErrorResponse },
      },
    },
    async (req, reply) => {
      await recordOpen(ctx, req.params.token);
      return reply.headers(NO_CACHE).type('image/gif').send(PIXEL);
    },
  );
  app.get(
    '/t/c/:token',
    {
      exposeHeadRoute: false,
      schema: {
        tags,
        summary: "Click redirect: counts a click and redirects to the link's target",
        params: TokenParam,
        response: { 404: ErrorResponse },
      },
    },
    async (req, reply) => {
      const url = await recordClick(ctx, req.params.token);
      return reply.headers(NO_CACHE).redirect(url, 302);
    },
  );
}
