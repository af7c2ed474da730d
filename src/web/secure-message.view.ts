/**
 * The HTML of the secure message page and its error pages: server-rendered, every value escaped, no scripts and no
 * external assets. The message's own HTML is sanitized and shown in a sandboxed frame, which inherits the page's
 * Content-Security-Policy, so it can neither run scripts nor load anything from elsewhere (remote images included).
 */
import type SanitizeHtml from 'sanitize-html';
import { html, type SafeHtml } from '../http/html.ts';
import { layout, type HtmlPage } from '../http/page.ts';
import type { Brand } from '../markup/brand.ts';
import { onFirstUse } from '../on-first-use.ts';

const sanitizer = onFirstUse<typeof SanitizeHtml>('sanitize-html');

/** What the message page shows. */
export interface MessageView {
  from: string;
  to: string;
  subject: string;
  date: string;
  text?: string;
  html?: string;
  attachments: { name: string; contentType: string; size: number; href: string }[];
}

/** Cleans a message's HTML: no scripts, handlers, forms or embeds; links open outside the frame. */
export function sanitizeMessageHtml(html: string): string {
  const sanitizeHtml = sanitizer();
  return sanitizeHtml(html, {
    allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'style', 'center', 'font'],
    allowedAttributes: {
      '*': [
        'style',
        'class',
        'align',
        'valign',
        'width',
        'height',
        'bgcolor',
        'color',
        'border',
        'dir',
        'lang',
        'title',
      ],
      a: ['href', 'name', 'target', 'rel'],
      img: ['src', 'alt', 'width', 'height'],
      font: ['face', 'size', 'color'],
      table: ['cellpadding', 'cellspacing', 'border', 'width', 'bgcolor', 'align'],
      td: ['colspan', 'rowspan', 'width', 'bgcolor', 'align', 'valign'],
      th: ['colspan', 'rowspan', 'width', 'bgcolor', 'align', 'valign'],
    },
    allowedSchemes: ['http', 'https', 'mailto', 'tel'],
    allowedSchemesByTag: { img: ['data', 'http', 'https'] },
    // <style> is allowed because the frame inherits a policy that blocks every load, which is what makes CSS risky.
    allowVulnerableTags: true,
    transformTags: {
      a: sanitizeHtml.simpleTransform('a', { target: '_blank', rel: 'noopener noreferrer' }),
    },
  });
}

function bodyOf(view: MessageView): SafeHtml {
  if (view.html === undefined) return view.text === undefined ? html`` : html`<pre>${view.text}</pre>`;
  const doc = `<!doctype html><html><head><meta charset="utf-8"></head><body>${sanitizeMessageHtml(view.html)}</body></html>`;
  const frame = html`<iframe title="Message" sandbox="allow-popups allow-popups-to-escape-sandbox" referrerpolicy="no-referrer" srcdoc="${doc}"></iframe>`;
  if (view.text === undefined) return frame;
  return html`${frame}
<details><summary>Plain text version</summary><pre>${view.text}</pre></details>`;
}

const size = (n: number) =>
  n < 1024
    ? `${n} bytes`
    : n < 1_048_576
      ? `${(n / 1024).toFixed(1)} KB`
      : `${(n / 1_048_576).toFixed(1)} MB`;

/** The page of a message. */
export function messagePage(view: MessageView, brand?: Brand): HtmlPage {
  const attachments =
    view.attachments.length === 0
      ? ''
      : html`<section><h2>Attachments</h2><ul>${view.attachments.map(
          (a) =>
            html`<li><a href="${a.href}" download>${a.name}</a> (${a.contentType}, ${size(a.size)})</li>`,
        )}</ul></section>`;
  const page = layout(
    view.subject || 'Secure message',
    html`<h1>${view.subject}</h1>
<dl>
<dt>From</dt><dd>${view.from}</dd>
<dt>To</dt><dd>${view.to}</dd>
<dt>Date</dt><dd>${view.date}</dd>
</dl>
${bodyOf(view)}
${attachments}
<footer>This message was delivered securely. Do not forward this link: anyone who has it can read the message until it expires.</footer>`,
    brand,
  );
  return { status: 200, html: page };
}

/** A page saying why there is no message to show. */
export function errorPage(status: 404 | 410, title: string, text: string, brand?: Brand): HtmlPage {
  return { status, html: layout(title, html`<h1>${title}</h1>\n<p>${text}</p>`, brand) };
}

/** The unknown-link page. */
export const notFoundPage = (): HtmlPage =>
  errorPage(
    404,
    'Message not found',
    'This secure link is not valid. Check that the whole link was copied from the notification.',
  );

/** The expired-link page. */
export const expiredPage = (brand?: Brand): HtmlPage =>
  errorPage(
    410,
    'Link expired',
    'This secure link has expired. Ask the sender to send the message again.',
    brand,
  );

/** The page of a message whose content retention has removed. */
export const purgedPage = (brand?: Brand): HtmlPage =>
  errorPage(
    410,
    'Message no longer available',
    'This message is no longer available: its content was removed after the retention period.',
    brand,
  );
