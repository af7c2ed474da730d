/**
 * Keeping a console session and its work: "stay signed in" before the idle timeout ends it, and the fields of a form
 * posted after it ended, handed once to the same user after signing in again (console.js fills the form in).
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors/app-error.ts';
import { takeDraft } from '../users/drafts.service.ts';
import { touchSession } from '../users/sessions.service.ts';
import { guard } from './page.ts';

/** Registers the keep-alive and the draft. */
export function sessionRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post('/console/session/keep-alive', { schema: { hide: true } }, async (req, reply) => {
    const c = await guard(ctx, req, reply, 'read');
    if (!c) return reply;
    await touchSession(ctx.database.db, c.session.id);
    return reply.code(204).send();
  });

  app.get<{ Params: { id: string } }>(
    '/console/drafts/:id',
    { schema: { hide: true } },
    async (req, reply) => {
      const c = await guard(ctx, req, reply, 'read');
      if (!c) return reply;
      const draft = await takeDraft(ctx, c.user.id, req.params.id);
      if (!draft) throw new AppError('not_found', 'this draft was already restored or has expired');
      return reply.header('cache-control', 'no-store').send({ action: draft.path, fields: draft.fields });
    },
  );
}
