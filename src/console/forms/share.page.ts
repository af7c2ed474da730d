/**
 * A form's Share page: the hosted URL and the vanity URL with copy buttons, a QR code of the address people should
 * use (shown, and downloadable as PNG and SVG), embed snippets (a frame and a link), and (for editors) setting the
 * vanity name through the same forms service as the API.
 */
import type { FastifyInstance } from 'fastify';
import type QRCodeModule from 'qrcode';
import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors/app-error.ts';
import { requireList } from '../../marketing/lists/lists.service.ts';
import { changeForm, formOf } from '../../forms/definitions/forms.service.ts';
import { html, raw } from '../../http/html.ts';
import { csrfField } from '../layout.ts';
import { consoleAction, consolePage, type ConsoleContext } from '../page.ts';
import { auditForm } from './form-audit.ts';
import { formsAssets, formTabs } from './builder.view.ts';
import { onFirstUse } from '../../on-first-use.ts';
import { Form, Text } from '../action.schemas.ts';

const qrcode = onFirstUse<typeof QRCodeModule>('qrcode');

/** Letters, digits, dots, dashes and underscores: a vanity name that needs no escaping in a URL. */
const VANITY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

function urlLine(id: string, label: string, url: string) {
  return html`<div class="share-url">
    <strong>${label}</strong>
    <code id="${id}">${url}</code>
    <button type="button" class="secondary" data-copy="${id}">Copy</button>
    <a href="${url}" target="_blank" rel="noopener">Open</a>
  </div>`;
}

/** The form and the addresses people reach it at: its hosted URL, its vanity URL, and the one to prefer. */
async function addressesOf(c: ConsoleContext) {
  const form = await formOf(c.ctx, c.account.customer_id, c.params.id!);
  const hosted = `${c.ctx.publicUrl}/f/${form.id}`;
  const vanity = form.vanity_url ? `${c.ctx.publicUrl}/f/${encodeURIComponent(form.vanity_url)}` : undefined;
  return { form, hosted, vanity, best: vanity ?? hosted };
}

const QR_OPTIONS = { margin: 2, errorCorrectionLevel: 'M' } as const;

/** The embed snippets: a frame that shows the hosted page inside the site's own page, and a plain link. */
function snippets(best: string, title: string): { frame: string; link: string } {
  const safe = title.replace(/[<>&"]/g, '');
  return {
    frame: `<iframe src="${best}" title="${safe}" width="100%" height="720" style="border:0;max-width:40rem" loading="lazy"></iframe>`,
    link: `<a href="${best}" target="_blank" rel="noopener">${safe}</a>`,
  };
}

async function sharePage(c: ConsoleContext) {
  const { form, hosted, vanity, best } = await addressesOf(c);
  const qr = await qrcode().toString(best, { type: 'svg', ...QR_OPTIONS });
  const embed = snippets(best, form.title);
  return {
    title: `Share: ${form.title}`,
    body: html`${formsAssets()} ${formTabs(form.id, 'share', c.can('read_protected'))}
      ${
        form.active
          ? ''
          : html`<div class="flash flash-info" role="status">
              This form is a draft: its addresses answer "not found" until it is published.
            </div>`
      }
      <div class="card">
        <h2>Addresses</h2>
        ${urlLine('hosted-url', 'Hosted page', hosted)} ${vanity ? urlLine('vanity-url', 'Vanity address', vanity) : ''}
        ${
          c.can('edit_content')
            ? html`<form method="post" action="/console/forms/${form.id}/vanity" class="actions">
                ${csrfField(c.csrfToken)}
                <div class="field">
                  <label for="vanity">Vanity name (letters, digits, . _ -; empty for none)</label>
                  <input type="text" id="vanity" name="vanity" value="${form.vanity_url ?? ''}" maxlength="100" />
                </div>
                <button type="submit" class="secondary">Set vanity name</button>
              </form>`
            : ''
        }
      </div>
      <div class="card">
        <h2>QR code</h2>
        <figure class="form-qr">
          ${raw(qr.replace('<svg ', '<svg role="img" aria-label="QR code of the form address" '))}
          <figcaption class="muted">Opens ${best}. Print it on posters or a waiting-room card.</figcaption>
        </figure>
        <p class="actions">
          <a class="button secondary" href="/console/forms/${form.id}/share/qr.png" download>Download PNG</a>
          <a class="button secondary" href="/console/forms/${form.id}/share/qr.svg" download>Download SVG</a>
        </p>
      </div>
      <div class="card">
        <h2>Embed on your site</h2>
        <p>
          Paste this frame into a page of your site: the form shows inside it, with your brand, and answers go straight to
          Sealpost. Your site never sees them.
        </p>
        <pre class="mono" id="embed-snippet">${embed.frame}</pre>
        <button type="button" class="secondary" data-copy="embed-snippet">Copy frame snippet</button>
        <p>Or a link that opens the form at its own address:</p>
        <pre class="mono" id="link-snippet">${embed.link}</pre>
        <button type="button" class="secondary" data-copy="link-snippet">Copy link snippet</button>
      </div>`,
  };
}

/** Registers the Share page and setting the vanity name. */
export function sharePages(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: '/console/forms/:id/share',
    permission: 'read',
    title: 'Share',
    render: sharePage,
  });
  consolePage(app, ctx, {
    path: '/console/forms/:id/share/qr.png',
    permission: 'read',
    title: 'QR code',
    render: async (c) => {
      const { form, best } = await addressesOf(c);
      const body = await qrcode().toBuffer(best, { type: 'png', width: 1024, ...QR_OPTIONS });
      return { download: { filename: `form-${form.id}-qr.png`, contentType: 'image/png', body } };
    },
  });
  consolePage(app, ctx, {
    path: '/console/forms/:id/share/qr.svg',
    permission: 'read',
    title: 'QR code',
    render: async (c) => {
      const { form, best } = await addressesOf(c);
      const body = await qrcode().toString(best, { type: 'svg', ...QR_OPTIONS });
      return { download: { filename: `form-${form.id}-qr.svg`, contentType: 'image/svg+xml', body } };
    },
  });
  consoleAction(app, ctx, {
    path: '/console/forms/:id/vanity',
    permission: 'edit_content',
    body: Form({ vanity: Text() }),
    handle: async (c) => {
      const id = c.params.id!;
      const name = (c.form.vanity ?? '').trim();
      if (name && !VANITY.test(name))
        throw new AppError(
          'request.unprocessable',
          'a vanity name is 1 to 100 letters, digits, dots, dashes or underscores',
        );
      await changeForm(c.ctx, c.account.customer_id, id, { vanity_url: name }, requireList);
      await auditForm(c, 'form.vanity', `form:${id}`, { vanity_url: name });
      return {
        redirect: `/console/forms/${id}/share`,
        flash: name ? `Vanity name set: ${name}` : 'Vanity name removed',
      };
    },
  });
}
