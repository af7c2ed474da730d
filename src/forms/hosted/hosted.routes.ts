/** The hosted form pages `/f/<id>` (form, post, thank-you). Public; works with JavaScript off. */
import formbody from '@fastify/formbody';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { TypedApp } from '../../http/typed.ts';
import type { AppContext } from '../../context.ts';
import { PAGE_HEADERS } from './page.html.ts';
import { postForm, readPost, showForm, showThanks, type HostedAnswer } from './hosted.service.ts';
import type { IpLimiter } from '../submissions/spam.ts';
import { BOT_SCRIPT, BOT_SCRIPT_PATH } from './script.ts';

const params = Type.Object({ id: Type.String() });
const tags = ['hosted forms'];

function send(reply: FastifyReply, answer: HostedAnswer): FastifyReply {
  if ('redirect' in answer) return reply.code(303).headers(PAGE_HEADERS).redirect(answer.redirect, 303);
  return reply.code(answer.status).headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(answer.html);
}

/** Registers the hosted pages; urlencoded bodies are parsed only here. */
export async function hostedRoutes(app: TypedApp, ctx: AppContext, limiter: IpLimiter): Promise<void> {
  const maxBytes = ctx.config.formsSubmitMaxBytes;
  await app.register(async (scope) => {
    await scope.register(formbody, { bodyLimit: maxBytes });
    const typed = scope as unknown as TypedApp;
    typed.get(
      '/f/:id',
      { schema: { tags, summary: 'The hosted form page', params, produces: ['text/html'] } },
      async (req, reply) => send(reply, await showForm(ctx, req.params.id)),
    );
    typed.post(
      '/f/:id',
      {
        bodyLimit: maxBytes,
        onRequest: async (req) => limiter.take(req.ip),
        schema: {
          tags,
          summary: 'The hosted form page post (urlencoded or multipart)',
          params,
          produces: ['text/html'],
        },
      },
      async (req, reply) =>
        send(reply, await postForm(ctx, req.params.id, await readPost(req, maxBytes), req.ip)),
    );
    typed.get(
      BOT_SCRIPT_PATH,
      {
        // An asset of the hosted page, not an API operation.
        schema: { hide: true },
      },
      async (_req, reply) =>
        reply
          .header('cache-control', 'public, max-age=31536000, immutable')
          .header('x-content-type-options', 'nosniff')
          .type('text/javascript; charset=utf-8')
          .send(BOT_SCRIPT),
    );
    typed.get(
      '/f/:id/thanks',
      {
        schema: { tags, summary: 'The thank-you page after a hosted post', params, produces: ['text/html'] },
      },
      async (req, reply) => send(reply, await showThanks(ctx, req.params.id)),
    );
  });
}
