/**
 * What one marketing email says: the frozen content of its send (or, for a drip step, its mailing) rendered for one
 * subscriber, with tracked links, an unsubscribe link and a preference page link in the body (and the account's postal
 * address when it has one) and the List-Unsubscribe headers of RFC 2369 and
 * RFC 8058 (one-click). Extra recipients of a send (addresses that are not subscribers) get the content untracked and
 * without an unsubscribe link.
 */
import { LRUCache } from 'lru-cache';
import type { MessageContent } from '../../delivery/model.ts';
import { html, withBreaks } from '../../http/html.ts';
import { findLinks, rewriteLinks } from '../../mail/links.ts';
import { EMPTY_PERSONALISATION, personalise, type Personalisation } from '../mailings/personalise.ts';
import { tokenUrls } from '../../mail/tokens.ts';
import type { TemplateSource } from './deliveries.repository.ts';

/**
 * Content frozen when a send is created (campaigns/sends.service.ts): later edits of the mailing do not change a send.
 */
export interface SendContent {
  subject: string;
  html: string | null;
  text: string | null;
  fromEmail: string;
  fromName: string;
  customerName: string | null;
  /** The account's postal address when the send started, for the footer and `{{postal_address}}`. */
  postalAddress?: string | null;
  /** Extra recipients (not subscribers), written as deliveries when the send starts. */
  recipientEmails?: string[];
}

/** The template of one email: a send's frozen content, or a drip step's mailing as it is now. */
export type EmailTemplate = SendContent;

/** The template a delivery's content source holds. */
export function templateOfSource(source: TemplateSource): EmailTemplate {
  if (source.kind === 'send') return JSON.parse(source.content) as SendContent;
  return {
    subject: source.subject,
    html: source.html_part,
    text: source.text_part,
    fromEmail: source.from_email ?? '',
    fromName: source.from_name ?? '',
    customerName: null,
    postalAddress: source.postal_address ?? null,
  };
}

/**
 * Whether the link at a template position is tracked: a link whose target is itself personalised is not. The answer
 * is kept for the templates rendered last, so a send's links are found once, not once per copy.
 */
function trackable(template: string): (position: number) => boolean {
  const hit = trackableLinks.get(template);
  if (hit) return hit;
  const tracked = findLinks(template).map((link) => !/%7B%7B|\{\{/i.test(link.url));
  const answer = (position: number) => tracked[position] === true;
  trackableLinks.set(template, answer);
  return answer;
}

const trackableLinks = new LRUCache<string, (position: number) => boolean>({ max: 8 });

/** The target of the tracked link at `position` of a template, or undefined. */
export function linkTarget(template: EmailTemplate, position: number): string | undefined {
  if (!template.html || !trackable(template.html)(position)) return undefined;
  return findLinks(template.html)[position]?.url;
}

/** Renders an email for one delivery. `p` is null for an extra recipient (untracked, no unsubscribe link). */
export function renderEmail(
  template: EmailTemplate,
  delivery: { id: number; email: string },
  p: Personalisation | null,
  urls: { publicUrl: string; key: Buffer },
): MessageContent {
  const values: Personalisation = p ?? { ...EMPTY_PERSONALISATION, email: delivery.email };
  const unsubscribeUrl = p
    ? tokenUrls.marketing.unsubscribe(urls.publicUrl, urls.key, delivery.id)
    : undefined;
  const preferencesUrl = p ? tokenUrls.marketing.preferences(urls.publicUrl, urls.key, delivery.id) : '';
  const postal = template.postalAddress ?? '';
  // As a merge field the address is one line (its lines joined by commas); the footer keeps its lines.
  const postalLine = postal
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .join(', ');
  const withLink: Personalisation = unsubscribeUrl
    ? {
        ...values,
        custom: {
          ...values.custom,
          unsubscribe_url: unsubscribeUrl,
          preferences_url: preferencesUrl,
          view_in_browser_url: tokenUrls.marketing.view(urls.publicUrl, urls.key, delivery.id),
          postal_address: postalLine,
        },
      }
    : { ...values, custom: { ...values.custom, postal_address: postalLine } };
  let html: string | undefined;
  if (template.html) {
    html = personalise(template.html, withLink, { html: true });
    if (p) {
      const tracked = trackable(template.html);
      html = rewriteLinks(html, (position, url) =>
        tracked(position) ? tokenUrls.marketing.click(urls.publicUrl, urls.key, delivery.id, position) : url,
      );
    }
    if (unsubscribeUrl && !mentionsUnsubscribe(template.html))
      html = appendFooter(html, { unsubscribeUrl, preferencesUrl, postal }, template.customerName);
  }
  let text = template.text ? personalise(template.text, withLink, { html: false }) : undefined;
  if (text !== undefined && unsubscribeUrl && !mentionsUnsubscribe(template.text!))
    text +=
      `\n\n--\nTo stop receiving these emails, unsubscribe: ${unsubscribeUrl}\n` +
      `Manage your subscriptions: ${preferencesUrl}\n${postal ? `${postal}\n` : ''}`;
  return {
    subject: personalise(template.subject, values, { html: false }),
    from: { address: template.fromEmail, name: template.fromName },
    to: [{ address: delivery.email, name: '' }],
    cc: [],
    headers: unsubscribeUrl ? { 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } : {},
    ...(html !== undefined && { html }),
    ...(text !== undefined && { text }),
    attachments: [],
    ...(unsubscribeUrl && { unsubscribeUrl }),
  };
}

const mentionsUnsubscribe = (template: string) => /\{\{\{?\s*unsubscribe_url\s*\}?\}\}/.test(template);

/**
 * Puts the footer (unsubscribe and preference links, the account's postal address) before `</body>`, or at the end
 * when the HTML has no body tag.
 */
function appendFooter(
  doc: string,
  f: { unsubscribeUrl: string; preferencesUrl: string; postal: string },
  customerName: string | null,
): string {
  const who = customerName ? html` from ${customerName}` : '';
  const address = f.postal ? html`<br>${withBreaks(f.postal)}` : '';
  const footer =
    html`<p style="font-size:12px;color:#666;margin-top:24px">You receive this email because you subscribed${who}. <a href="${f.unsubscribeUrl}">Unsubscribe</a> · <a href="${f.preferencesUrl}">Manage your subscriptions</a>${address}</p>`
      .value;
  const at = doc.toLowerCase().lastIndexOf('</body');
  return at < 0 ? doc + footer : doc.slice(0, at) + footer + doc.slice(at);
}
