/**
 * The console at `/console`: one encapsulated scope with urlencoded form parsing, the security headers, HTML error
 * pages, the assets, the sign-in routes and every page. A page module exports `xPages(app, ctx)` that calls
 * `consolePage`/`consoleAction` (see page.ts) and is listed in PAGES below; navigation entries without a page yet
 * answer a plain "not available yet" page.
 */
import formbody from '@fastify/formbody';
import type { FastifyError, FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors/app-error.ts';
import { assetRoutes } from './assets.ts';
import { sessionRoutes } from './session.routes.ts';
import { setConsoleHeaders } from './headers.ts';
import { html } from '../http/html.ts';
import { NAV, plainPage, sentence } from './layout.ts';
import { consolePage, notAvailable, signInUrl } from './page.ts';
import { signInRoutes } from './sign-in.routes.ts';
import { overviewPages } from './overview.page.ts';
import { settingsPages } from './settings.page.ts';
import { brandPages } from './brand.page.ts';
import { suppressionPages } from './suppressions.page.ts';
import { listsPages } from './audiences/lists.page.ts';
import { subscribersPages } from './audiences/subscribers.page.ts';
import { importsPages } from './audiences/imports.page.ts';
import { campaignsPages } from './campaigns/campaigns.page.ts';
import { sendPages } from './campaigns/send.page.ts';
import { analyticsPages } from './campaigns/analytics.page.ts';
import { dripPages } from './campaigns/drips.page.ts';
import { twoFactorPages } from './two-factor.page.ts';
import { userPages } from './users.page.ts';
import { auditPages } from './audit.page.ts';
import { formsPages } from './forms/forms.page.ts';
import { domainPages } from './domains.page.ts';
import { keyPages } from './keys.page.ts';
import { webhookPages } from './webhooks.page.ts';
import { messagePages } from './messages.page.ts';
import { capturedPages } from './captured.page.ts';
import { templatePages } from './templates.page.ts';
import { accountPages } from './accounts.page.ts';
import type { TxtResolver } from '../accounts/domains.service.ts';

/** What pages may be given besides the context: outside services tests replace (DNS). */
export interface ConsoleDeps {
  dns?: TxtResolver;
}

/** Every page module, in navigation order. */
const PAGES: ((app: FastifyInstance, ctx: AppContext, deps: ConsoleDeps) => void | Promise<void>)[] = [
  overviewPages,
  formsPages,
  listsPages,
  importsPages,
  subscribersPages,
  campaignsPages,
  sendPages,
  analyticsPages,
  dripPages,
  domainPages,
  keyPages,
  webhookPages,
  messagePages,
  capturedPages,
  templatePages,
  settingsPages,
  brandPages,
  suppressionPages,
  twoFactorPages,
  userPages,
  auditPages,
  accountPages,
];

/** Registers the console. */
export async function consoleRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  deps: ConsoleDeps = {},
): Promise<void> {
  await app.register(async (scope) => {
    await scope.register(formbody, { bodyLimit: 1_000_000 });
    scope.addHook('onSend', async (_req, reply, payload) => {
      setConsoleHeaders(reply);
      return payload;
    });
    scope.setErrorHandler((err: FastifyError | AppError, req, reply) => {
      const known = err instanceof AppError && err.status < 500;
      if (!known) req.log.error({ err }, 'console request failed');
      if (known && err.code === 'auth.forbidden') return reply.code(303).redirect(signInUrl(req), 303);
      const status = known
        ? err.status
        : (err as FastifyError).statusCode && (err as FastifyError).statusCode! < 500
          ? (err as FastifyError).statusCode!
          : 500;
      const title =
        status === 403
          ? 'Not allowed'
          : status === 404
            ? 'Not found'
            : status < 500
              ? 'Request refused'
              : 'Something went wrong';
      const text = known
        ? err.message
        : status < 500
          ? 'The request could not be read.'
          : `The server could not complete this request. Reference: ${req.id}`;
      return reply
        .code(status)
        .type('text/html; charset=utf-8')
        .send(
          plainPage(
            title,
            html`<p>${sentence(text)}</p>
              <p><a href="/console">Back to the console</a></p>`,
          ),
        );
    });
    await scope.register(
      async (prefixed) => {
        prefixed.setNotFoundHandler((_req, reply) =>
          reply
            .code(404)
            .type('text/html; charset=utf-8')
            .send(
              plainPage(
                'Not found',
                html`<p>There is no console page at this address.</p>
                  <p><a href="/console">Back to the console</a></p>`,
              ),
            ),
        );
      },
      { prefix: '/console' },
    );
    // The address people type first leads to the console (the API lives under its own paths).
    scope.get('/', { schema: { hide: true } }, (_req, reply) => reply.redirect('/console', 302));
    assetRoutes(scope);
    signInRoutes(scope, ctx);
    sessionRoutes(scope, ctx);
    for (const pages of PAGES) await pages(scope, ctx, deps);
    for (const item of NAV)
      if (!scope.hasRoute({ method: 'GET', url: item.path }))
        consolePage(scope, ctx, {
          path: item.path,
          permission: item.capability,
          title: item.label,
          render: async () => notAvailable(item.label),
        });
  });
}
