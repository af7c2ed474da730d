/**
 * An email's HTML shown inside a page: sanitized (no scripts, handlers, forms or embeds; links open outside the frame)
 * and put in a sandboxed frame, which inherits the page's Content-Security-Policy, so it can neither run scripts nor
 * load anything the page's policy does not allow. The secure message page and the view-in-browser page use it.
 */
import type SanitizeHtml from 'sanitize-html';
import { html, type SafeHtml } from './html.ts';
import { onFirstUse } from '../on-first-use.ts';

const sanitizer = onFirstUse<typeof SanitizeHtml>('sanitize-html');

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

/** The message's body for a page: the HTML in a sandboxed frame (the text part folded below it), or the text. */
export function messageBody(view: { html?: string; text?: string }): SafeHtml {
  if (view.html === undefined) return view.text === undefined ? html`` : html`<pre>${view.text}</pre>`;
  const doc = `<!doctype html><html><head><meta charset="utf-8"></head><body>${sanitizeMessageHtml(view.html)}</body></html>`;
  const frame = html`<iframe title="Message" sandbox="allow-popups allow-popups-to-escape-sandbox" referrerpolicy="no-referrer" srcdoc="${doc}"></iframe>`;
  if (view.text === undefined) return frame;
  return html`${frame}
<details><summary>Plain text version</summary><pre>${view.text}</pre></details>`;
}
