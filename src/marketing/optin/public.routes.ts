/**
 * Public pages of subscribers, reached from emails with no sign-in (the signed token in the URL is the credential):
 * the confirmation link of double opt-in `/confirm/<token>` and the preference page `/p/<token>`. A GET only shows a
 * page (mail scanners follow links); the page's buttons POST, and the preference page's forms carry a key bound to
 * the link, so a form posted from another site is refused.
 */
import formbody from '@fastify/formbody';
import type { TypedApp } from '../../http/typed.ts';
import type { AppContext } from '../../context.ts';
import { html, raw } from '../../http/html.ts';
import { layout } from '../../http/page.ts';
import { TokenParam } from '../../tracking/tracking.schemas.ts';
import { UNSUBSCRIBE_HEADERS } from '../../tracking/unsubscribe.routes.ts';
import { confirmByToken, confirmInfo } from './optin.service.ts';
import { formKeyMatches, preferencesOf, savePreferences, type Preferences } from './preferences.service.ts';

const HTML = 'text/html; charset=utf-8';
type Page = { status: number; html: string };

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
  void app.register(async (scope) => {
    await scope.register(formbody, { bodyLimit: 16384 });
    const post = (
      path: string,
      summary: string,
      page: (token: string, body: Record<string, unknown>) => Promise<Page>,
    ) =>
      (scope as unknown as TypedApp).post(
        path,
        { bodyLimit: 16384, schema: { tags, summary, params: TokenParam, produces: ['text/html'] } },
        async (req, reply) => {
          const p = await page(
            (req.params as { token: string }).token,
            (req.body ?? {}) as Record<string, unknown>,
          );
          return reply.code(p.status).headers(UNSUBSCRIBE_HEADERS).type(HTML).send(p.html);
        },
      );
    post('/confirm/:token', 'Confirm a double opt-in subscription (the link works once)', (token) =>
      pageOr404('confirmation', async () => {
        const info = await confirmByToken(ctx, token);
        return layout(
          'Subscription confirmed',
          html`<h1>Subscription confirmed</h1>\n<p><strong>${info.email}</strong> is now subscribed to the list <strong>${info.listName}</strong>.</p>`,
        );
      }),
    );
    post('/p/:token', 'Save the preference page', async (token, body) => {
      if (!formKeyMatches(ctx, token, body.form_key))
        return {
          status: 403,
          html: layout(
            'Not saved',
            html`<h1>Not saved</h1>\n<p>This form did not come from your preference page. Open the link from your email again.</p>`,
          ),
        };
      const raw = body.list;
      const subscribed = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).map(String);
      return pageOr404('preferences', async () =>
        preferencesPage(
          await savePreferences(ctx, token, { subscribed, everything: body.scope === 'all' }),
          body.scope === 'all' ? 'You are unsubscribed from all emails.' : 'Your choices are saved.',
        ),
      );
    });
  });
}

function confirmPage(info: { email: string; listName: string }): string {
  return layout(
    'Confirm your subscription',
    html`${PAGE_STYLE}
<h1>Confirm your subscription</h1>
<p>Receive emails of the list <strong>${info.listName}</strong> at <strong>${info.email}</strong>?</p>
<form method="post"><button type="submit">Yes, confirm my subscription</button></form>
<p>If you did not ask for this, close this page: nothing will be sent to you.</p>`,
  );
}

const PAGE_STYLE = raw(`<style>
fieldset{border:1px solid #dde1e7;border-radius:6px;padding:.8rem 1rem;margin:0 0 1rem}
legend{font-weight:600;padding:0 .3rem}
.choice{display:flex;gap:.6rem;align-items:center;padding:.45rem 0;font-size:1rem}
.choice input{width:1.3rem;height:1.3rem;flex:none}
button{font:inherit;padding:.6rem 1rem;border-radius:6px;border:1px solid #1f4fd1;background:#1f4fd1;color:#fff;cursor:pointer}
button.quiet{background:#fff;color:#a4161a;border-color:#a4161a}
.saved{background:#e7f5ec;border:1px solid #9ccfae;border-radius:6px;padding:.6rem .8rem}
</style>`);

function preferencesPage(p: Preferences, saved?: string): string {
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
    html`${PAGE_STYLE}
<h1>Email preferences</h1>
${saved ? html`<p class="saved" role="status">${saved}</p>` : ''}
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
  );
}
