/**
 * A form's Look page: logo, colours, thank-you text, a redirect after a response and the hosted page's language,
 * without writing CSS, and the form's bot defence. Both are stored in `form_json.settings` through the same forms
 * service as the API, so the same check refuses a bad value (shown as a notice, nothing saved); each save keeps the
 * other's settings.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import { requireList } from '../../marketing/lists/lists.service.ts';
import { changeForm, formOf } from '../../forms/definitions/forms.service.ts';
import {
  BOT_KEYS,
  botDefenceOf,
  DIFFICULTY,
  LOOK_KEYS,
  MIN_SECONDS,
  type FormSettings,
} from '../../forms/definitions/settings.ts';
import { html } from '../../http/html.ts';
import { csrfField } from '../layout.ts';
import { consoleAction, consolePage, type ConsoleContext } from '../page.ts';
import { formsAssets, formTabs } from './builder.view.ts';
import { auditForm } from './form-audit.ts';
import { TextFields } from '../action.schemas.ts';

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
    body: html`${formsAssets()} ${formTabs(form.id, 'look', c.can('read_protected'))}
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
      ${botDefenceCard(c, form.id, s, ro)}
      <p><a href="/console/forms/${form.id}/preview" target="_blank" rel="noopener">Open the preview</a></p>`,
  };
}

const MODES = [
  ['off', 'Off', 'Only the hidden honeypot field and the per-address limit, as every form has.'],
  [
    'time',
    'Time check',
    'The page carries a signed, time-stamped token; a response sent sooner than the minimum below, or with an old, altered or reused token, is refused.',
  ],
  [
    'proof_of_work',
    'Proof of work',
    "The time check, and the visitor's browser solves a small puzzle before sending. Without JavaScript the time check and the honeypot still apply.",
  ],
] as const;

function botDefenceCard(c: ConsoleContext, id: string, s: FormSettings, ro: string) {
  const d = botDefenceOf(s);
  return html`<form method="post" action="/console/forms/${id}/bot-defence" class="card">
    <h2>Bot defence</h2>
    ${csrfField(c.csrfToken)}
    <p class="hint">No CAPTCHA: people see nothing. Submissions through the API then need a key of this account.</p>
    <fieldset class="field">
      <legend>Defence</legend>
      ${MODES.map(
        ([value, label, hint]) =>
          html`<div class="check">
            <input type="radio" id="bot-${value}" name="bot_defence" value="${value}" aria-describedby="bot-${value}-hint" ${d.mode === value ? 'checked' : ''} ${ro} />
            <label for="bot-${value}">${label}</label>
          </div>
          <p class="hint" id="bot-${value}-hint">${hint}</p>`,
      )}
    </fieldset>
    <div class="field">
      <label for="bot_min_seconds">Fewest seconds between showing the page and sending it</label>
      <input type="number" id="bot_min_seconds" name="bot_min_seconds" min="${MIN_SECONDS.min}" max="${MIN_SECONDS.max}" value="${d.minSeconds}" aria-describedby="bot-seconds-hint" ${ro} />
      <p class="hint" id="bot-seconds-hint">Default ${MIN_SECONDS.default}. A person rarely answers a form this fast; scripts do.</p>
    </div>
    <div class="field">
      <label for="bot_difficulty">Puzzle difficulty (bits, proof of work only)</label>
      <input type="number" id="bot_difficulty" name="bot_difficulty" min="${DIFFICULTY.min}" max="${DIFFICULTY.max}" value="${d.difficulty}" aria-describedby="bot-difficulty-hint" ${ro} />
      <p class="hint" id="bot-difficulty-hint">Default ${DIFFICULTY.default}: a fraction of a second in a desktop browser, around a second on an older phone. Each bit more doubles the work.</p>
    </div>
    ${ro ? '' : html`<button type="submit">Save the bot defence</button>`}
  </form>`;
}

/** The form's settings with the named ones replaced by the posted values (empty values dropped). */
function withPosted(
  formJson: unknown,
  keys: readonly string[],
  posted: Record<string, unknown>,
): Record<string, unknown> {
  const current = ((formJson as { settings?: Record<string, unknown> }).settings ?? {}) as Record<
    string,
    unknown
  >;
  const kept = Object.fromEntries(Object.entries(current).filter(([k]) => !keys.includes(k)));
  const given = Object.fromEntries(Object.entries(posted).filter(([, v]) => v !== '' && v !== undefined));
  return { ...(formJson as object), settings: { ...kept, ...given } };
}

const whole = (v: string) => (/^-?\d+$/.test(v) ? Number(v) : v);

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
    body: TextFields(LOOK_KEYS),
    handle: (c) =>
      saveSettings(c, LOOK_KEYS, (field) => {
        const posted = Object.fromEntries(LOOK_KEYS.map((k) => [k, field(k)]));
        const audit = { action: 'form.look', detail: { settings: LOOK_KEYS.filter((k) => posted[k]) } };
        return { posted, audit, flash: 'Look saved' };
      }),
  });
  consoleAction(app, ctx, {
    path: '/console/forms/:id/bot-defence',
    permission: 'edit_content',
    body: TextFields(BOT_KEYS),
    handle: (c) =>
      saveSettings(c, BOT_KEYS, (field) => {
        const mode = field('bot_defence');
        const posted =
          mode === 'off'
            ? {}
            : {
                bot_defence: mode,
                bot_min_seconds: whole(field('bot_min_seconds')),
                bot_difficulty: mode === 'proof_of_work' ? whole(field('bot_difficulty')) : '',
              };
        const audit = { action: 'form.bot_defence', detail: { mode: mode || 'off' } };
        return { posted, audit, flash: 'Bot defence saved' };
      }),
  });
}

/** Stores the posted values of one group of settings through the forms service (keeping the others), then audits. */
async function saveSettings(
  c: ConsoleContext,
  keys: readonly string[],
  read: (field: (name: string) => string) => {
    posted: Record<string, unknown>;
    audit: { action: string; detail: Record<string, unknown> };
    flash: string;
  },
) {
  const id = c.params.id!;
  const form = await formOf(c.ctx, c.account.customer_id, id);
  const { posted, audit, flash } = read((name) => String(c.form[name] ?? '').trim());
  const form_json = withPosted(form.form_json, keys, posted);
  await changeForm(c.ctx, c.account.customer_id, id, { form_json }, requireList);
  await auditForm(c, audit.action, `form:${id}`, audit.detail);
  return { redirect: `/console/forms/${id}/look`, flash };
}
