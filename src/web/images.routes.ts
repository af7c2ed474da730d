/**
 * Public images of the accounts' libraries, `/img/<token>.<ext>`, for emails and pages. The token is unguessable and
 * the bytes never change, so the answer may be cached for a year by anyone. The type is the decoded image's, never
 * the upload's, with `nosniff`, `inline` and a policy that lets nothing run, so no upload can become a page.
 */
import { Type } from '@sinclair/typebox';
import type { TypedApp } from '../http/typed.ts';
import type { AppContext } from '../context.ts';
import { publicImage } from '../accounts/images.service.ts';

/** Headers of every public image answer. */
export const IMAGE_HEADERS = {
  'cache-control': 'public, max-age=31536000, immutable',
  'x-content-type-options': 'nosniff',
  'content-disposition': 'inline',
  'content-security-policy': "default-src 'none'; sandbox",
  'cross-origin-resource-policy': 'cross-origin',
  'referrer-policy': 'no-referrer',
};

/** Registers the public image route. */
export function publicImageRoutes(app: TypedApp, ctx: AppContext): void {
  app.get(
    '/img/:file',
    {
      schema: {
        tags: ['images'],
        summary: 'An image of an image library, by its public URL',
        params: Type.Object({ file: Type.String({ maxLength: 64 }) }),
        produces: ['image/png', 'image/jpeg', 'image/gif', 'image/webp'],
      },
    },
    async (req, reply) => {
      const image = await publicImage(ctx, req.params.file);
      if (!image)
        return reply
          .code(404)
          .headers({ 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' })
          .type('text/plain; charset=utf-8')
          .send('Not found\n');
      return reply.headers(IMAGE_HEADERS).type(image.contentType).send(image.data);
    },
  );
}
