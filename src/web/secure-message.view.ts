/**
 * The HTML of the secure message page and its error pages: server-rendered, every value escaped, no scripts and no
 * external assets. The message's own HTML is sanitized and shown in a sandboxed frame, which inherits the page's
 * Content-Security-Policy, so it can neither run scripts nor load anything from elsewhere (remote images included).
 */
import { html } from '../http/html.ts';
import { messageBody, sanitizeMessageHtml } from '../http/message-frame.ts';
import { layout, type HtmlPage } from '../http/page.ts';
import type { Brand } from '../markup/brand.ts';

export { sanitizeMessageHtml };

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
${messageBody(view)}
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
