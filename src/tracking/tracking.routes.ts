/**
 * Public tracking routes of every kind of mail, reached from the mail itself with no API key: the open pixel
 * `<prefix>/o/<token>.gif`, the click redirect `<prefix>/c/<token>` (`/t` for transactional mail, `/t/m` for marketing
 * mail) and, for a kind that keeps subscriptions, the unsubscribe link `/u/<token>`.
 */
import { Type } from '@sinclair/typebox';
import type { TypedApp } from '../http/typed.ts';
import type { KindTracking, MailKind } from '../delivery/kind.ts';
import { ErrorResponse } from '../mail/error-body.ts';
import { TokenParam } from './tracking.schemas.ts';
import { unsubscribeRoutes } from './unsubscribe.routes.ts';

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

/** Registers the tracking routes of each kind it is handed. */
export function trackingRoutes(app: TypedApp, kinds: readonly MailKind[]): void {
  for (const { tracking } of kinds) {
    trackingPair(app, tracking);
    if (tracking.unsubscribe) unsubscribeRoutes(app, tracking.unsubscribe, tracking.tags);
  }
}

/** Registers the open pixel and the click redirect of one kind. */
function trackingPair(app: TypedApp, pair: KindTracking): void {
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
