/**
 * What one recipient receives: the message with that recipient's tracking, or a secure notification, described for
 * the renderer (render.ts), which renders it and DKIM-signs it with each key of the From domain. Bcc recipients never
 * appear in the headers: To and Cc show the visible recipients only, and the envelope names the one recipient this
 * copy is for.
 */
import { randomInt } from 'node:crypto';
import { pooledRandomBytes } from '../crypto/random-pool.ts';
import { escapeHtml } from '../markup/escape.ts';
import type { DeliveryItem, HtmlTracker, Mailbox, MessageContent } from './model.ts';
import { addressLines, type RenderJob } from './render.ts';
import type { Renderer } from './render-pool.ts';

/** A mail to render. */
interface MailSpec {
  from: Mailbox;
  to: Mailbox[];
  replyTo?: Mailbox;
  subject: string;
  messageId: string;
  date: Date;
  headers?: Record<string, string>;
  text?: string;
  html?: string;
  envelopeFrom: string;
  envelopeTo: string;
}

/**
 * The raw message for one recipient: its content, with open and click tracking in the HTML when the message asked for
 * it. The To and Cc headers, which grow with the recipient list, are rendered once per message and spliced into each
 * copy, and the copy is DKIM-signed after, so a message to n recipients costs n times a one-recipient message, not n².
 * A copy with nothing of its recipient in it (no tracking, and content that is the message's own) is rendered once and
 * sent to the message's other recipients, kept only while some of them are still to be delivered.
 */
export function composeMessage(
  item: DeliveryItem,
  content: MessageContent,
  tracker: HtmlTracker,
  renderer: Pick<Renderer, 'render'>,
): Promise<Buffer> {
  if (!sameForEveryRecipient(item, content)) return renderCopy(item, content, tracker, renderer);
  const key = sharedCopyKey(item);
  const hit = sharedCopies.get(content);
  if (hit?.key === key) {
    // The last recipient to be delivered: nothing more to keep the copy for.
    if (!item.othersPending) sharedCopies.delete(content);
    return hit.raw;
  }
  const raw = renderCopy(item, content, tracker, renderer);
  if (item.othersPending) {
    const entry = { key, raw };
    sharedCopies.set(content, entry);
    // A failed render is not kept: the next recipient renders again.
    raw.catch(() => sharedCopies.get(content) === entry && sharedCopies.delete(content));
  }
  return raw;
}

/** The rendered copy of messages whose copies are all alike, kept at most as long as their opened content is. */
const sharedCopies = new WeakMap<MessageContent, { key: string; raw: Promise<Buffer> }>();

/**
 * Whether this recipient's copy is every recipient's: the content is the message's own (not made for this recipient)
 * and its HTML carries no tracking (the envelope, which names the recipient, is not part of the copy).
 */
function sameForEveryRecipient(item: DeliveryItem, content: MessageContent): boolean {
  const tracked = content.html !== undefined && (item.linkTracking || item.openTracking);
  return item.othersPending !== undefined && !tracked;
}

/** What else a shared copy depends on: the message's identity and date, and the keys that sign it. */
function sharedCopyKey(item: DeliveryItem): string {
  const keys = item.dkim.map((k) => `${k.domainName}/${k.keySelector}`).join(',');
  return `${item.reference ?? ''} ${item.headerMessageId} ${item.createdAt} ${keys}`;
}

function renderCopy(
  item: DeliveryItem,
  content: MessageContent,
  tracker: HtmlTracker,
  renderer: Pick<Renderer, 'render'>,
): Promise<Buffer> {
  return renderer.render({
    options: renderOptions({
      from: content.from,
      to: [],
      replyTo: content.replyTo,
      subject: content.subject,
      messageId: item.headerMessageId,
      date: new Date(item.createdAt),
      headers: { ...headersOf(content), [PLACEHOLDER]: '1' },
      text: content.text,
      html: content.html === undefined ? undefined : trackedHtml(item, content.html, tracker),
      envelopeFrom: item.envelopeFrom,
      envelopeTo: item.address,
    }),
    attachments: content.attachments.length > 0 ? content.attachments : undefined,
    splice: addressSplice(item, content),
    dkim: item.dkim,
  });
}

// A header name no message carries, marking where the address lines go.
// Digits only: the renderer capitalises each dash-separated part of a header name.
const PLACEHOLDER = `X-Sealpost-Addresses-${randomInt(1e9, 1e10)}`;
// Kept as long as the opened content is (the delivery store keeps it for the message's other recipients).
const addressCache = new WeakMap<MessageContent, string>();

/**
 * Where the To and Cc lines of a copy come from. They grow with the recipient list, so for a message with other copies
 * to come they are built here once and kept for those copies; a copy with no others to come (a one-recipient message,
 * each campaign copy) leaves them to the renderer, which is off the event loop when render threads run.
 */
function addressSplice(item: DeliveryItem, content: MessageContent): RenderJob['splice'] {
  const { to, cc } = content;
  const hit = addressCache.get(content);
  if (hit !== undefined) return { header: PLACEHOLDER, lines: hit };
  if (!item.othersPending) return { header: PLACEHOLDER, to, cc };
  const lines = addressLines(to, cc);
  addressCache.set(content, lines);
  return { header: PLACEHOLDER, lines };
}

/** A notification that holds no content of the message, addressed to the one recipient. */
export interface NotificationMail {
  from: Mailbox;
  subject: string;
  text: string;
  html: string;
}

/** The raw secure notification for one recipient. */
export function composeNotification(
  item: DeliveryItem,
  mail: NotificationMail,
  renderer: Pick<Renderer, 'render'>,
): Promise<Buffer> {
  const options = renderOptions({
    from: mail.from,
    to: [{ address: item.address, name: '' }],
    subject: mail.subject,
    messageId: `<secure.${item.recipientId}.${item.headerMessageId.slice(1)}`,
    date: new Date(),
    text: mail.text,
    html: mail.html,
    envelopeFrom: item.envelopeFrom,
    envelopeTo: item.address,
  });
  return renderer.render({ options, dkim: item.dkim });
}

/** The headers the message carries through: X- headers, List-Unsubscribe(-Post), and List-Unsubscribe from the unsubscribe URL. */
function headersOf(content: MessageContent): Record<string, string> {
  const headers = { ...content.headers };
  const hasUnsubscribe = Object.keys(headers).some((k) => k.toLowerCase() === 'list-unsubscribe');
  if (content.unsubscribeUrl && !hasUnsubscribe) headers['List-Unsubscribe'] = `<${content.unsubscribeUrl}>`;
  return headers;
}

/** Rewrites tracked links to click URLs and appends the open pixel, each only when the message has it on. */
function trackedHtml(item: DeliveryItem, html: string, tracker: HtmlTracker): string {
  let out = item.linkTracking && tracker.rewriteLinks ? tracker.rewriteLinks(html, item.recipientId) : html;
  if (item.openTracking) out = appendPixel(out, tracker.openPixelUrl(item.recipientId));
  return out;
}

/** Puts a 1x1 image before `</body>`, or at the end when the HTML has no body tag. */
function appendPixel(html: string, url: string): string {
  const img = `<img src="${escapeHtml(url)}" width="1" height="1" alt="">`;
  const at = html.toLowerCase().lastIndexOf('</body');
  return at < 0 ? html + img : html.slice(0, at) + img + html.slice(at);
}

/** The composer's options for a mail (see render.ts). */
function renderOptions(spec: MailSpec): RenderJob['options'] {
  return {
    from: spec.from,
    to: spec.to.length > 0 ? spec.to : undefined,
    replyTo: spec.replyTo,
    subject: spec.subject,
    messageId: spec.messageId,
    date: spec.date,
    headers: spec.headers,
    text: spec.text,
    html: spec.html,
    envelope: { from: spec.envelopeFrom, to: [spec.envelopeTo] },
    // The composer would draw a few random bytes from the system for each MIME part; one pooled value serves them all.
    baseBoundary: pooledRandomBytes(8).toString('hex'),
  } as RenderJob['options'];
}
