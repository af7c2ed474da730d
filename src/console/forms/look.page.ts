/**
 * A form's Look page: logo, colours, thank-you text, a redirect after a response and the hosted page's language,
 * without writing CSS. Stored in `form_json.settings` through the same forms service as the API, so the same check
 * refuses a bad value (shown as a notice, nothing saved).
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import { requireList } from '../../marketing/lists/lists.service.ts';
import { changeForm, formOf } from '../../forms/definitions/forms.service.ts';
import type { FormSettings } from '../../forms/definitions/settings.ts';
import { html } from '../html.ts';
import { csrfField } from '../layout.ts';
import { consoleAction, consolePage, type ConsoleContext } from '../page.ts';
import { formsAssets, formTabs } from './builder.view.ts';
import { auditForm } from './form-audit.ts';

const COLORS = [
  ['accent_color', 'Accent colour (title, button)', '#0b5c7a'],
  ['background_color', 'Background colour', '#ffffff'],
  ['text_color', 'Text colour', '#1c2430'],
] as const;

async function lookPage(c: ConsoleContext) {
  const form = await formOf(c.ctx, c.account.customer_id, c.params.id!);
  const s = ((form.form_json as { settings?: FormSettings }).settings ?? {}) as FormSettings;
  const ro = c.can('edit_content') ? '' : 'disabled';
  return {
    title: `Look: ${form.title}`,
    body: html`${formsAssets()} ${formTabs(form.id, 'look')}
      <form method="post" action="/console/forms/${form.id}/look" class="card">
        ${csrfField(c.csrfToken)}
        <div class="field">
          <label for="logo_url">Logo address (https)</label>
          <input type="url" id="logo_url" name="logo_url" value="${s.logo_url ?? ''}" ${ro} />
        </div>
        ${COLORS.map(
          ([name, label, fallback]) =>
            html`<div class="field">
              <label for="${name}">${label}</label>
              <input type="color" class="swatch" id="${name}" name="${name}" value="${s[name] ?? fallback}" ${ro} />
            </div>`,
        )}
        <div class="field">
          <label for="thank_you_text">Thank-you text (empty for the standard sentence)</label>
          <textarea id="thank_you_text" name="thank_you_text" rows="3" maxlength="2000" ${ro}>${s.thank_you_text ?? ''}</textarea>
        </div>
        <div class="field">
          <label for="redirect_url">After a response, go on to (https, optional)</label>
          <input type="url" id="redirect_url" name="redirect_url" value="${s.redirect_url ?? ''}" ${ro} />
        </div>
        <div class="field">
          <label for="language">Language of the page's own texts (buttons, messages)</label>
          <select id="language" name="language" ${ro}>
            <option value="en" ${s.language !== 'es' ? 'selected' : ''}>English</option>
            <option value="es" ${s.language === 'es' ? 'selected' : ''}>Español</option>
          </select>
        </div>
        ${ro ? '' : html`<button type="submit">Save the look</button>`}
      </form>
      <p><a href="/console/forms/${form.id}/preview" target="_blank" rel="noopener">Open the preview</a></p>`,
  };
}

/** Registers the Look page and its save. */
export function lookPages(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: '/console/forms/:id/look',
    permission: 'read',
    title: 'Look',
    render: lookPage,
  });
  consoleAction(app, ctx, {
    path: '/console/forms/:id/look',
    permission: 'edit_content',
    handle: async (c) => {
      const id = c.params.id!;
      const form = await formOf(c.ctx, c.account.customer_id, id);
      const field = (name: string) => String(c.form[name] ?? '').trim();
      const settings = Object.fromEntries(
        [
          'logo_url',
          'accent_color',
          'background_color',
          'text_color',
          'thank_you_text',
          'redirect_url',
          'language',
        ]
          .map((k) => [k, field(k)])
          .filter(([, v]) => v),
      );
      await changeForm(
        c.ctx,
        c.account.customer_id,
        id,
        { form_json: { ...(form.form_json as object), settings } },
        requireList,
      );
      await auditForm(c, 'form.look', `form:${id}`, { settings: Object.keys(settings) });
      return { redirect: `/console/forms/${id}/look`, flash: 'Look saved' };
    },
  });
}
