/** Public tracking routes: the open pixel `/t/o/<token>.gif` and the click redirect `/t/c/<token>`. No API key. */
import { Type } from '@sinclair/typebox';
import type { TypedApp } from '../http/typed.ts';
import type { AppContext } from '../context.ts';
import { ErrorResponse } from '../mail/error-body.ts';
import { recordClick, recordOpen } from '../email/tracking.service.ts';

/** A transparent 1x1 GIF. */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/** Nothing here may be cached (every open and click must reach the server) or leak the token onward. */
const NO_CACHE = {
  'cache-control': 'no-store, no-cache, must-revalidate, max-age=0',
  pragma: 'no-cache',
  expires: '0',
  'referrer-policy': 'no-referrer',
};

/** The GIF body, for the OpenAPI document (a Buffer is sent as is, never serialized). */
const Gif = Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'A transparent 1x1 GIF' });

export const TokenParam = Type.Object({ token: Type.String() });

/** What a pair of tracking routes counts: an open by its pixel token, a click by its token (answering the target). */
export interface TrackingPair {
  /** Path prefix: the pixel is `<prefix>/o/<token>.gif`, the click `<prefix>/c/<token>`. */
  prefix: string;
  tags: string[];
  open(token: string): Promise<void>;
  click(token: string): Promise<string>;
}

/** Registers an open pixel and a click redirect; transactional and marketing mail each have their own pair. */
export function registerTrackingPair(app: TypedApp, pair: TrackingPair): void {
  const { tags } = pair;
  app.get(
    `${pair.prefix}/o/:token`,
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
      await pair.open(req.params.token);
      return reply.headers(NO_CACHE).type('image/gif').send(PIXEL);
    },
  );
  app.get(
    `${pair.prefix}/c/:token`,
    {
      exposeHeadRoute: false,
      schema: {
        tags,
        summary: "Click redirect: counts a click and redirects to the link's target",
        params: TokenParam,
        response: { 404: ErrorResponse },
      },
    },
    async (req, reply) => reply.headers(NO_CACHE).redirect(await pair.click(req.params.token), 302),
  );
}

/** Registers the open pixel and the click redirect of transactional mail. */
export function trackingRoutes(app: TypedApp, ctx: AppContext): void {
  registerTrackingPair(app, {
    prefix: '/t',
    tags: ['tracking'],
    open: (token) => recordOpen(ctx, token),
    click: (token) => recordClick(ctx, token),
  });
}
