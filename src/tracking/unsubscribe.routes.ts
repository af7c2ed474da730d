/**
 * The unsubscribe link `/u/<token>` of a kind of mail that keeps subscriptions (marketing), reached from the email itself
 * with no API key (the signed token is the credential). Its GET only shows a confirm page (mail scanners follow links);
 * its POST unsubscribes: the page's buttons, and mail clients' RFC 8058 one-click `List-Unsubscribe=One-Click` POST.
 * A form its schema refuses (a field repeated or too long) changes nothing: the confirm page comes back with a notice.
 */
import formbody from '@fastify/formbody';
import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypedApp } from '../http/typed.ts';
import { html } from '../http/html.ts';
import { layout, PAGE_HEADERS } from '../http/page.ts';
import type { KindUnsubscribe, UnsubscribeInfo } from '../delivery/kind.ts';
import { formBody, TokenParam, UnsubscribeForm } from './tracking.schemas.ts';

const HTML = 'text/html; charset=utf-8';
/** The page headers, with forms allowed to post back to this server. */
export const UNSUBSCRIBE_HEADERS = {
  ...PAGE_HEADERS,
  'content-security-policy': PAGE_HEADERS['content-security-policy'].replace(
    "form-action 'none'",
    "form-action 'self'",
  ),
};

/** Registers the unsubscribe confirm page and the unsubscribe POST. */
export function unsubscribeRoutes(app: TypedApp, unsubscribe: KindUnsubscribe, tags: string[]): void {
  app.get(
    '/u/:token',
    {
      exposeHeadRoute: false,
      schema: {
        tags,
        summary: 'Unsubscribe confirm page (changes nothing)',
        params: TokenParam,
        produces: ['text/html'],
      },
    },
    async (req, reply) => {
      const page = await pageOr404(
        () => unsubscribe.info(req.params.token),
        (info) => confirmPage(info),
      );
      return reply.code(page.status).headers(UNSUBSCRIBE_HEADERS).type(HTML).send(page.html);
    },
  );
  // The unsubscribe POST reads urlencoded bodies (the page's buttons, RFC 8058); any other body is ignored, since the
  // token alone decides what is unsubscribed.
  void app.register(async (scope) => {
    await formsOnly(scope, 16384);
    unsubscribePost(scope as unknown as TypedApp, unsubscribe, tags);
  });
}

/**
 * Makes the posts of `scope` read urlencoded bodies of up to `bodyLimit` bytes, a page's forms, and ignore a body of
 * any other type (drained unread), so their form schemas see every body they are given.
 */
export async function formsOnly(scope: FastifyInstance, bodyLimit: number): Promise<void> {
  scope.removeAllContentTypeParsers();
  await scope.register(formbody, { bodyLimit });
  scope.addContentTypeParser('*', (_req, payload, done) => {
    payload.resume();
    payload.on('end', () => done(null, undefined));
    payload.on('error', (err) => done(err, undefined));
  });
}

function unsubscribePost(app: TypedApp, unsubscribe: KindUnsubscribe, tags: string[]): void {
  app.post(
    '/u/:token',
    {
      bodyLimit: 16384,
      attachValidation: true,
      schema: {
        tags,
        summary:
          'Unsubscribe: the confirm page buttons, and RFC 8058 one-click (`List-Unsubscribe=One-Click`)',
        params: TokenParam,
        body: formBody(UnsubscribeForm),
        produces: ['text/html'],
      },
    },
    async (req, reply) => {
      const { token } = req.params;
      if (req.validationError) {
        const again = await pageOr404(
          () => unsubscribe.info(token),
          (info) => confirmPage(info, true),
          400,
        );
        return reply.code(again.status).headers(UNSUBSCRIBE_HEADERS).type(HTML).send(again.html);
      }
      const form = (req.body ?? {}) as Static<typeof UnsubscribeForm>;
      const global = form.scope === 'all';
      const page = await pageOr404(
        () => unsubscribe.apply(token, global),
        (info) => donePage(info, global),
      );
      return reply.code(page.status).headers(UNSUBSCRIBE_HEADERS).type(HTML).send(page.html);
    },
  );
}

async function pageOr404(
  load: () => Promise<UnsubscribeInfo>,
  render: (info: UnsubscribeInfo) => string,
  status = 200,
): Promise<{ status: number; html: string }> {
  try {
    return { status, html: render(await load()) };
  } catch (err) {
    if ((err as { code?: string }).code !== 'not_found') throw err;
    return {
      status: 404,
      html: layout(
        'Link not valid',
        html`<h1>Link not valid</h1>\n<p>This unsubscribe link is not valid. Check that the whole link was copied.</p>`,
      ),
    };
  }
}

const fromWhom = (info: UnsubscribeInfo) => (info.customerName ? html` from ${info.customerName}` : '');

/** The confirm page; `refused` when it comes back after a form that could not be read. */
function confirmPage(info: UnsubscribeInfo, refused = false): string {
  const list = info.listName ? html`the list <strong>${info.listName}</strong>` : 'these emails';
  const state = info.globallyUnsubscribed
    ? html`<p>This address is already unsubscribed from all emails.</p>`
    : info.unsubscribed
      ? html`<p>This address is already unsubscribed from ${list}.</p>`
      : '';
  return layout(
    'Unsubscribe',
    html`<h1>Unsubscribe</h1>
${refused ? html`<p class="refused" role="alert">Nothing was changed: the form could not be read. Choose again below.</p>\n` : ''}<p>Stop emails to <strong>${info.email}</strong>${fromWhom(info)}?</p>
${state}
<form method="post"><input type="hidden" name="scope" value="list"><button type="submit">Unsubscribe from ${list}</button></form>
<form method="post"><input type="hidden" name="scope" value="all"><button type="submit" class="quiet">Unsubscribe from all emails${fromWhom(info)}</button></form>`,
    info.brand,
  );
}

function donePage(info: UnsubscribeInfo, global: boolean): string {
  const what =
    global || !info.listName
      ? html`all emails${fromWhom(info)}`
      : html`the list <strong>${info.listName}</strong>`;
  return layout(
    'Unsubscribed',
    html`<h1>Unsubscribed</h1>\n<p><strong>${info.email}</strong> is unsubscribed from ${what}.</p>`,
    info.brand,
  );
}
