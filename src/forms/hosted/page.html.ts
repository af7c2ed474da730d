/**
 * The hosted form page `/f/<id>`: a complete HTML document rendered from the definition with the form's own CSS,
 * a native form post that works with JavaScript off, an error summary and per-field messages after a failed submit,
 * a honeypot field, and a per-render token that makes a double submit count once. A form with a bot defence also
 * carries its signed check token and, for proof of work, the installation's solver script. Also the thank-you and
 * not-found pages.
 */
import { html, raw, withBreaks, type SafeHtml } from '../../http/html.ts';
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
 * https images; the only script is the installation's own solver file (never inline).
 */
export const PAGE_HEADERS = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src https: data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
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

// Inputs at the body's 16 px (phones zoom into smaller ones on focus) and 44 px tap targets.
const BASE_CSS = `body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;line-height:1.5}
.sp-field{margin:0 0 1rem}.sp-field label,.sp-field legend{display:block;font-weight:600}
.sp-field input:not([type=checkbox]):not([type=radio]),.sp-field select,.sp-field textarea{display:block;width:100%;box-sizing:border-box;padding:.5rem;font:inherit;min-height:2.75rem}
.sp-field input[type=checkbox],.sp-field input[type=radio]{width:1.25rem;height:1.25rem;flex:none}.sp-button{font:inherit;min-height:2.75rem;padding:.6rem 1.4rem}
.sp-check,.sp-option{display:flex;align-items:center;gap:.5rem;margin:.25rem 0}.sp-field .sp-check label,.sp-field .sp-option label{display:inline;font-weight:normal;margin:0}
.sp-affirmation{font-style:italic;margin:.25rem 0}.sp-error{color:#b00020;margin:.25rem 0 0}.sp-has-error input,.sp-has-error select,.sp-has-error textarea{border-color:#b00020}
.sp-summary{border:2px solid #b00020;padding:.5rem 1rem;margin-bottom:1rem}.sp-check-status:empty{display:none}.sp-hp{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}`;

/** Keeps the form's CSS inside its style element. */
const cssText = (css: string) => css.replace(/<\/(style)/gi, '<\\/$1');

/** CSS of the look settings (colours were checked to be #rrggbb). */
function lookCss(s: FormSettings): string {
  return [
    s.background_color || s.text_color
      ? `body{${s.background_color ? `background:${s.background_color};` : ''}${s.text_color ? `color:${s.text_color}` : ''}}`
      : '',
    s.accent_color
      ? `h1{color:${s.accent_color}}.sp-button{background:${s.accent_color};color:#fff;border:0;border-radius:4px;padding:.6rem 1.4rem;font:inherit;font-weight:600}a{color:${s.accent_color}}`
      : '',
    '.sp-logo{display:block;max-height:80px;max-width:100%;margin:0 0 1rem}',
  ].join('');
}

function documentHtml(
  title: string,
  css: string,
  body: SafeHtml,
  settings: FormSettings = {},
  refresh?: string,
  script?: string,
): string {
  const meta = html`${refresh ? html`<meta http-equiv="refresh" content="2;url=${refresh}">` : ''}${script ? html`<script src="${script}" defer></script>` : ''}`;
  const logo = settings.logo_url ? html`<img class="sp-logo" src="${settings.logo_url}" alt="">` : '';
  const style = raw(BASE_CSS + lookCss(settings));
  const own = css ? html`<style>${raw(cssText(css))}</style>` : '';
  return html`<!doctype html><html lang="${settings.language ?? 'en'}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex">${meta}<title>${title}</title><style>${style}</style>${own}</head><body><main>${logo}${body}</main></body></html>`
    .value;
}

/** The components with the fixed texts of the page's language where a component leaves them to the page. */
function withTexts(components: Component[], settings: FormSettings): Component[] {
  const t = TEXTS[settings.language ?? 'en'];
  const out = components.map((c) =>
    c.type === 'Button' && !c.properties.text
      ? { ...c, properties: { ...c.properties, text: t.submit } }
      : c.type === 'Select' && !c.properties.placeholder
        ? { ...c, properties: { ...c.properties, placeholder: t.choose } }
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
    settings,
    undefined,
    pow ? BOT_SCRIPT_URL : undefined,
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
export function thanksPage(form: PageForm, settings: FormSettings = {}): string {
  const t = TEXTS[settings.language ?? 'en'];
  const text = settings.thank_you_text ?? t.received(form.title);
  return documentHtml(
    form.title,
    form.form_css,
    html`<h1>${t.thanksTitle}</h1><p class="sp-thanks" role="status">${withBreaks(text)}</p>${settings.redirect_url ? html`<p><a href="${settings.redirect_url}">${t.next}</a></p>` : ''}`,
    settings,
    settings.redirect_url,
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
