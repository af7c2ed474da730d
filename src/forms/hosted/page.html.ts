/**
 * The hosted form page `/f/<id>`: a complete HTML document rendered from the definition with the form's own CSS,
 * a native form post that works with JavaScript off, an error summary and per-field messages after a failed submit,
 * a honeypot field, and a per-render token that makes a double submit count once. A form with a bot defence also
 * carries its signed check token and, for proof of work, the installation's solver script. Also the thank-you and
 * not-found pages.
 */
import { html, withBreaks, type SafeHtml } from '../../http/html.ts';
import { publicDocument, type PageBrand } from '../../http/page.ts';
import { foregroundOn, normaliseColour, textShadeOf } from '../../markup/colour.ts';
import { fieldName, type Component } from '../components/component-types.ts';
import {
  affirmationOf,
  CHECK_FIELD,
  HONEYPOT_FIELD,
  POW_FIELD,
  TOKEN_FIELD,
} from '../definitions/definition.ts';
import type { FormSettings } from '../definitions/settings.ts';
import { renderFragment } from '../components/fragment.html.ts';
import { TEXTS, type PageTexts } from './texts.ts';
import { BOT_SCRIPT_URL } from './script.ts';

/**
 * Response headers of every hosted page. Form posts go only to this server; nothing is loaded from elsewhere except
 * https images; the only script is the installation's own solver file (never inline). Any site may frame the page (the
 * embed snippet of the share page): it shows nothing private and takes only what its visitor types.
 */
export const PAGE_HEADERS = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self' https: data:; form-action 'self'; base-uri 'none'; frame-ancestors *",
  'x-content-type-options': 'nosniff',
};

/** What the page needs of a form. */
export interface PageForm {
  id: string;
  title: string;
  description: string | null;
  form_css: string;
  signable: number;
  signature_confirmation_label: string | null;
}

/** CSS of the look settings (colours were checked to be #rrggbb): the form's accent colour takes the brand's place. */
function lookCss(s: FormSettings): string {
  const accent = s.accent_color ? normaliseColour(s.accent_color) : undefined;
  return [
    ':root{--width:40rem}',
    s.background_color || s.text_color
      ? `body{${s.background_color ? `background:${s.background_color};` : ''}${s.text_color ? `color:${s.text_color}` : ''}}`
      : '',
    accent
      ? `:root{--brand:${accent};--on-brand:${foregroundOn(accent)};--accent:${textShadeOf(accent)}}h1{color:var(--accent)}`
      : '',
  ].join('');
}

/** A hosted page: the shared public layout under the account's brand, with the form's look and own CSS. */
function documentHtml(
  title: string,
  css: string,
  body: SafeHtml,
  opts: { settings?: FormSettings; refresh?: string; script?: string; brand?: PageBrand } = {},
): string {
  const settings = opts.settings ?? {};
  const head = html`${opts.refresh ? html`<meta http-equiv="refresh" content="2;url=${opts.refresh}">\n` : ''}${opts.script ? html`<script src="${opts.script}" defer></script>\n` : ''}`;
  const logo = settings.logo_url ? html`<img class="sp-logo" src="${settings.logo_url}" alt="">` : '';
  return publicDocument({
    title,
    body: html`${logo}${body}`,
    lang: settings.language ?? 'en',
    head,
    css: lookCss(settings) + (css ? `\n${css}` : ''),
    ...(opts.brand && { brand: opts.brand }),
  });
}

/** The components with the fixed texts of the page's language where a component leaves them to the page. */
function withTexts(components: Component[], settings: FormSettings): Component[] {
  const t = TEXTS[settings.language ?? 'en'];
  const out = components.map((c) =>
    c.type === 'Button' && !c.properties.text
      ? { ...c, properties: { ...c.properties, text: t.submit } }
      : c.type === 'Select' && !c.properties.placeholder
        ? { ...c, properties: { ...c.properties, placeholder: t.choose } }
        : c.type === 'Signature'
          ? { ...c, properties: { ...c.properties, hint: t.signHint } }
          : c,
  );
  if (!out.some((c) => c.type === 'Button'))
    out.push({ type: 'Button', id: 'sp-submit', properties: { text: t.submit } });
  return out;
}

/** The form page; after a failed submit `errors` holds a message per field name and `values` what was entered. */
export function formPage(
  form: PageForm,
  components: Component[],
  state: {
    values?: Record<string, unknown>;
    errors?: Record<string, string>;
    token: string;
    settings?: FormSettings;
    /** The bot defence's signed token, and the proof of work's difficulty when the form asks for one. */
    check?: { check: string; difficulty?: number };
    /** Why the last post was refused before its fields were checked (the bot defence). */
    notice?: string;
    /** The account's brand. */
    brand?: PageBrand;
  },
): string {
  const settings = state.settings ?? {};
  const t = TEXTS[settings.language ?? 'en'];
  components = withTexts(components, settings);
  const errors = state.errors ?? {};
  const multipart = components.some((c) => c.type === 'FileUpload');
  const pow = state.check?.difficulty;
  const head = html`<h1>${form.title}</h1>${form.description ? html`<p class="sp-description">${form.description}</p>` : ''}`;
  const formTag = html`<form method="post" action="/f/${form.id}"${multipart ? html` enctype="multipart/form-data"` : ''}${pow ? html` data-sp-pow-bits="${pow}"` : ''} novalidate>`;
  const status = pow
    ? html`<p class="sp-check-status" id="sp-check-status" role="status" data-waiting="${t.checking}"></p>`
    : '';
  const fields = renderFragment(components, state.values ?? {}, errors, affirmationOf(form) ?? undefined);
  return documentHtml(
    form.title,
    form.form_css,
    html`${head}${errorSummary(components, errors, t, state.notice)}${formTag}${hiddenFields(state, t)}${fields}${status}</form>`,
    { settings, ...(pow && { script: BOT_SCRIPT_URL }), ...(state.brand && { brand: state.brand }) },
  );
}

/** The box above the form after a failed submit: a link to each failing field, or why the post was refused. */
function errorSummary(
  components: Component[],
  errors: Record<string, string>,
  t: PageTexts,
  notice: string | undefined,
): SafeHtml | '' {
  const failing = components
    .map((c, i) => ({ c, i }))
    .filter(({ c }) => fieldName(c) && errors[fieldName(c)]);
  if (failing.length)
    return html`<div class="sp-summary" role="alert"><p>${failing.length === 1 ? t.correctOne : t.correctMany(failing.length)}</p><ul>${failing.map(
      ({ c, i }) => html`<li><a href="#sp-${i}">${labelFor(c)}: ${errors[fieldName(c)]!}</a></li>`,
    )}</ul></div>`;
  return notice ? html`<div class="sp-summary" role="alert"><p>${notice}</p></div>` : '';
}

/** The honeypot, the per-render token, and the bot defence's check token and proof-of-work slot. */
function hiddenFields(
  state: { token: string; check?: { check: string; difficulty?: number } },
  t: PageTexts,
): SafeHtml {
  return html`<div class="sp-hp" aria-hidden="true"><label for="${HONEYPOT_FIELD}">${t.honeypot}</label><input type="text" id="${HONEYPOT_FIELD}" name="${HONEYPOT_FIELD}" tabindex="-1" autocomplete="off"></div><input type="hidden" name="${TOKEN_FIELD}" value="${state.token}">${state.check ? html`<input type="hidden" name="${CHECK_FIELD}" value="${state.check.check}">` : ''}${state.check?.difficulty ? html`<input type="hidden" name="${POW_FIELD}" value="">` : ''}`;
}

function labelFor(c: Component): string {
  return (
    (typeof c.properties.text === 'string' ? c.properties.text.replace(/<[^>]*>/g, '').trim() : '') ||
    fieldName(c)
  );
}

/** The page shown after a successful submit. */
export function thanksPage(form: PageForm, settings: FormSettings = {}, brand?: PageBrand): string {
  const t = TEXTS[settings.language ?? 'en'];
  const text = settings.thank_you_text ?? t.received(form.title);
  return documentHtml(
    form.title,
    form.form_css,
    html`<h1>${t.thanksTitle}</h1><p class="sp-thanks" role="status">${withBreaks(text)}</p>${settings.redirect_url ? html`<p><a href="${settings.redirect_url}">${t.next}</a></p>` : ''}`,
    { settings, ...(settings.redirect_url && { refresh: settings.redirect_url }), ...(brand && { brand }) },
  );
}

/** The page for an unknown, inactive, archived or deleted form. */
export function notFoundPage(): string {
  return documentHtml(
    'Form not found',
    '',
    html`<h1>Form not found</h1><p>This form does not exist or no longer accepts responses.</p>`,
  );
}
