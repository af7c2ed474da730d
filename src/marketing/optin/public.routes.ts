/**
 * Public pages of subscribers, reached from emails with no sign-in (the signed token in the URL is the credential):
 * the confirmation link of double opt-in `/confirm/<token>` and the preference page `/p/<token>`. A GET only shows a
 * page (mail scanners follow links); the page's buttons POST, and the preference page's forms carry a key bound to
 * the link, so a form posted from another site is refused. Each POST declares its form; a preference form with the
 * right key that its schema refuses (a field repeated or too long) saves nothing: the page comes back with a notice.
 */
import { Type, type Static, type TObject } from '@sinclair/typebox';
import type { TypedApp } from '../../http/typed.ts';
import type { AppContext } from '../../context.ts';
import { html, type SafeHtml } from '../../http/html.ts';
import { layout } from '../../http/page.ts';
import { messageBody } from '../../http/message-frame.ts';
import { browserCopy } from '../deliveries/engagement.service.ts';
import { formBody, TokenParam } from '../../tracking/tracking.schemas.ts';
import { formsOnly, UNSUBSCRIBE_HEADERS } from '../../tracking/unsubscribe.routes.ts';
import { confirmByToken, confirmInfo, type ConfirmInfo } from './optin.service.ts';
import { formKeyMatches, preferencesOf, savePreferences, type Preferences } from './preferences.service.ts';

const HTML = 'text/html; charset=utf-8';
type Page = { status: number; html: string };

/** The confirm button: a form without fields. */
const ConfirmForm = Type.Object({});

/** A list on the preference page, by the id its checkbox carries. */
const ListRef = Type.String({ maxLength: 64 });

/** The preference page's forms: its key, which of them was sent (`lists` or `all`), and the lists ticked. */
const PreferencesForm = Type.Object({
  form_key: Type.String({ maxLength: 64, description: 'The key the page gave its forms' }),
  scope: Type.Optional(
    Type.String({
      maxLength: 16,
      description: '`all` unsubscribes from everything; anything else saves `list`',
    }),
  ),
  list: Type.Optional(Type.Union([ListRef, Type.Array(ListRef)], { description: 'The lists ticked' })),
});

/** What a post's handler is given: the form as its schema types it, or `refused` when the schema refused it. */
type Posted<B extends TObject> =
  { form: Static<B>; refused: false } | { form: Record<string, unknown>; refused: true };

async function pageOr404(what: string, render: () => Promise<string>): Promise<Page> {
  try {
    return { status: 200, html: await render() };
  } catch (err) {
    if ((err as { code?: string }).code !== 'not_found') throw err;
    return {
      status: 404,
      html: layout(
        'Link not valid',
        html`<h1>Link not valid</h1>\n<p>This ${what} link is not valid or has expired. Check that the whole link was copied.</p>`,
      ),
    };
  }
}

/** Registers the confirmation and preference pages. */
export function subscriberPageRoutes(app: TypedApp, ctx: AppContext): void {
  const tags = ['marketing tracking'];
  const get = (path: string, summary: string, page: (token: string) => Promise<Page>) =>
    app.get(
      path,
      { exposeHeadRoute: false, schema: { tags, summary, params: TokenParam, produces: ['text/html'] } },
      async (req, reply) => {
        const p = await page((req.params as { token: string }).token);
        return reply.code(p.status).headers(UNSUBSCRIBE_HEADERS).type(HTML).send(p.html);
      },
    );
  get('/confirm/:token', 'Double opt-in confirm page (changes nothing)', (token) =>
    pageOr404('confirmation', async () => confirmPage(await confirmInfo(ctx, token))),
  );
  get('/p/:token', 'Preference page of a subscriber (changes nothing)', (token) =>
    pageOr404('preferences', async () => preferencesPage(await preferencesOf(ctx, token))),
  );
  viewInBrowser(app, ctx, tags);
  void app.register(async (scope) => {
    await formsOnly(scope, 16384);
    const post = <B extends TObject>(
      path: string,
      summary: string,
      body: B,
      page: (token: string, posted: Posted<B>) => Promise<Page>,
    ) =>
      (scope as unknown as TypedApp).post(
        path,
        {
          bodyLimit: 16384,
          attachValidation: true,
          schema: { tags, summary, params: TokenParam, body: formBody(body), produces: ['text/html'] },
        },
        async (req, reply) => {
          const form = (req.body ?? {}) as Static<B>;
          const p = await page(
            (req.params as { token: string }).token,
            req.validationError ? { form, refused: true } : { form, refused: false },
          );
          return reply.code(p.status).headers(UNSUBSCRIBE_HEADERS).type(HTML).send(p.html);
        },
      );
    post(
      '/confirm/:token',
      'Confirm a double opt-in subscription (the link works once)',
      ConfirmForm,
      (token) =>
        pageOr404('confirmation', async () => {
          const info = await confirmByToken(ctx, token);
          return info.alreadyConfirmed
            ? alreadyConfirmedPage(info)
            : layout(
                'Subscription confirmed',
                html`<h1>Subscription confirmed</h1>\n<p><strong>${info.email}</strong> is now subscribed to the list <strong>${info.listName}</strong>.</p>`,
                info.brand,
              );
        }),
    );
    post('/p/:token', 'Save the preference page', PreferencesForm, (token, posted) =>
      savePage(ctx, token, posted),
    );
  });
}

/** Saves the preference page: a form without the page's key is refused first, then one its schema refused. */
async function savePage(
  ctx: AppContext,
  token: string,
  posted: Posted<typeof PreferencesForm>,
): Promise<Page> {
  if (!formKeyMatches(ctx, token, posted.form.form_key))
    return {
      status: 403,
      html: layout(
        'Not saved',
        html`<h1>Not saved</h1>\n<p>This form did not come from your preference page. Open the link from your email again.</p>`,
      ),
    };
  if (posted.refused) {
    const again = await pageOr404('preferences', async () =>
      preferencesPage(await preferencesOf(ctx, token), REFUSED),
    );
    return again.status === 200 ? { ...again, status: 400 } : again;
  }
  const { list, scope } = posted.form;
  const subscribed = list === undefined ? [] : [list].flat();
  return pageOr404('preferences', async () =>
    preferencesPage(
      await savePreferences(ctx, token, { subscribed, everything: scope === 'all' }),
      saved(scope === 'all' ? 'You are unsubscribed from all emails.' : 'Your choices are saved.'),
    ),
  );
}

function alreadyConfirmedPage(info: ConfirmInfo): string {
  return layout(
    'Already confirmed',
    html`<h1>Already confirmed</h1>\n<p><strong>${info.email}</strong> is already subscribed to the list <strong>${info.listName}</strong>. Nothing else to do.</p>`,
    info.brand,
  );
}

function confirmPage(info: ConfirmInfo): string {
  if (info.alreadyConfirmed) return alreadyConfirmedPage(info);
  return layout(
    'Confirm your subscription',
    html`<h1>Confirm your subscription</h1>
<p>Receive emails of the list <strong>${info.listName}</strong> at <strong>${info.email}</strong>?</p>
<form method="post"><button type="submit">Yes, confirm my subscription</button></form>
<p>If you did not ask for this, close this page: nothing will be sent to you.</p>`,
    info.brand,
  );
}

/** A notice that the page's choices were saved. */
const saved = (text: string) => html`<p class="saved" role="status">${text}</p>`;

/** The notice of a form that could not be read. */
const REFUSED = html`<p class="refused" role="alert">Nothing was saved: the form could not be read. Choose again below.</p>`;

function preferencesPage(p: Preferences, notice?: SafeHtml): string {
  const who = p.customerName ? html` from ${p.customerName}` : '';
  const key = html`<input type="hidden" name="form_key" value="${p.formKey}">`;
  const choices = p.lists.length
    ? p.lists.map(
        (l, i) =>
          html`${i > 0 ? '\n' : ''}<label class="choice"><input type="checkbox" name="list" value="${l.id}"${l.subscribed && !p.globallyUnsubscribed ? html` checked` : ''}> ${l.name}</label>`,
      )
    : html`<p>There are no lists to choose from.</p>`;
  return layout(
    'Email preferences',
    html`<h1>Email preferences</h1>
${notice ?? ''}
<p>Choose which emails <strong>${p.email}</strong> receives${who}.</p>
${p.globallyUnsubscribed ? html`<p>This address is unsubscribed from all emails. Ticking a list and saving subscribes it again.</p>` : ''}
<form method="post">${key}<input type="hidden" name="scope" value="lists">
<fieldset><legend>Lists</legend>
${choices}
</fieldset>
<button type="submit">Save my choices</button>
</form>
<section><h2>Stop everything</h2>
<form method="post">${key}<input type="hidden" name="scope" value="all"><button type="submit" class="quiet">Unsubscribe from all emails${who}</button></form>
</section>`,
    p.brand,
  );
}

/** The page of a view-in-browser link may show the email's https images, as the mail client would. */
const VIEW_HEADERS = {
  ...UNSUBSCRIBE_HEADERS,
  'content-security-policy': UNSUBSCRIBE_HEADERS['content-security-policy'].replace(
    "img-src 'self' data:",
    "img-src 'self' https: data:",
  ),
};

/** `/v/<token>`: a campaign email as its recipient got it, for a mail client that shows it badly. */
function viewInBrowser(app: TypedApp, ctx: AppContext, tags: string[]): void {
  app.get(
    '/v/:token',
    {
      exposeHeadRoute: false,
      schema: {
        tags,
        summary: 'A campaign email in the browser',
        params: TokenParam,
        produces: ['text/html'],
      },
    },
    async (req, reply) => {
      const p = await pageOr404('view-in-browser', async () => {
        const copy = await browserCopy(ctx, req.params.token);
        return layout(
          copy.subject || 'Email',
          html`<h1>${copy.subject}</h1>\n${messageBody(copy)}`,
          copy.brand,
        );
      });
      return reply.code(p.status).headers(VIEW_HEADERS).type(HTML).send(p.html);
    },
  );
}
