/**
 * The builder's preview: the hosted page rendered by the hosted page's own renderer, for the saved form (GET) or for
 * the builder's unsaved state (POST from the builder, aimed at the preview iframe). Served with the hosted page's
 * policy, except that the console may frame it and the preview's form goes nowhere.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors/app-error.ts';
import type { Component } from '../../forms/components/component-types.ts';
import { parseDefinition } from '../../forms/definitions/definition.ts';
import type { FormSettings } from '../../forms/definitions/settings.ts';
import { formOf } from '../../forms/definitions/forms.service.ts';
import { formPage, PAGE_HEADERS, type PageForm } from '../../forms/hosted/page.html.ts';
import { html } from '../../http/html.ts';
import { formOf as postedForm, formRoute, guard } from '../page.ts';
import { BuilderForm, readState } from './builder-state.ts';
import { builderError } from './builder-errors.ts';

const PREVIEW_CSP = PAGE_HEADERS['content-security-policy']
  .replace("form-action 'self'", "form-action 'none'")
  .replace(/frame-ancestors [^;]+/, "frame-ancestors 'self'");

function send(reply: FastifyReply, body: string, status = 200): FastifyReply {
  // Set after the console's own headers (route hooks run after the scope's), so the iframe may show it.
  void reply.header('x-preview', '1');
  return reply.code(status).type('text/html; charset=utf-8').send(body);
}

/** The preview's page for a definition it cannot show yet. */
function refusal(message: string): string {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Preview</title></head><body><main><p>The preview shows once this is fixed: ${message}</p></main></body></html>`
    .value;
}

type PreviewForm = Omit<PageForm, 'signable'> & { signable: boolean | number; form_json: unknown };

function page(form: PreviewForm, components: Component[]): string {
  try {
    const def = parseDefinition({ ...(form.form_json as object), body: components });
    return formPage({ ...form, signable: Number(form.signable) }, def.components, {
      token: 'preview',
      settings: def.json.settings as FormSettings | undefined,
    });
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return refusal(builderError(err.message, components).text);
  }
}

/** Registers GET and POST `/console/forms/:id/preview`. */
export function previewRoutes(app: FastifyInstance, ctx: AppContext): void {
  const onSend = async (_req: unknown, reply: FastifyReply, payload: unknown) => {
    if (reply.getHeader('x-preview')) {
      reply.removeHeader('x-preview');
      reply.header('content-security-policy', PREVIEW_CSP);
      reply.header('x-frame-options', 'SAMEORIGIN');
    }
    return payload;
  };
  app.get<{ Params: { id: string } }>(
    '/console/forms/:id/preview',
    { schema: { hide: true }, onSend },
    async (req, reply) => {
      const c = await guard(ctx, req, reply, 'read');
      if (!c) return reply;
      const form = await formOf(ctx, c.account.customer_id, req.params.id);
      return send(reply, page(form, (form.form_json as { body: Component[] }).body));
    },
  );
  app.post<{ Params: { id: string } }>(
    '/console/forms/:id/preview',
    { ...formRoute(BuilderForm), onSend },
    async (req, reply) => {
      const c = await guard(ctx, req, reply, 'read');
      if (!c) return reply;
      const posted = postedForm(c, BuilderForm);
      const form = await formOf(ctx, c.account.customer_id, req.params.id);
      const state = readState(posted);
      if (state.error) return send(reply, refusal(state.error), 422);
      const editing = c.can('edit_content') && {
        signable: state.signable,
        signature_confirmation_label: state.affirmation,
      };
      return send(
        reply,
        page(
          {
            ...form,
            ...editing,
            title: state.title || form.title,
            description: state.description || null,
          },
          state.components,
        ),
      );
    },
  );
}
