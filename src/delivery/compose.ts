/**
 * Building the raw MIME one recipient receives: the message with that recipient's tracking, or a secure notification.
 * Both are DKIM-signed with each key of the From domain (see dkim-sign.ts). Bcc recipients never appear in the
 * headers: To and Cc show the visible recipients only, and the envelope names the one recipient this copy is for.
 */
import { randomInt } from 'node:crypto';
import type Mail from 'nodemailer/lib/mailer/index.js';
import type MailComposer from 'nodemailer/lib/mail-composer/index.js';
import type MimeNode from 'nodemailer/lib/mime-node/index.js';
import mimeFuncs from 'nodemailer/lib/mime-funcs/index.js';
import { pooledRandomBytes } from '../crypto/random-pool.ts';
import type { DeliveryItem, HtmlTracker, Mailbox, MessageContent } from './model.ts';
import { onFirstUse } from '../on-first-use.ts';
import { signDkim } from './dkim-sign.ts';

const mailComposer = onFirstUse<typeof MailComposer>('nodemailer/lib/mail-composer/index.js');
const mimeNode = onFirstUse<typeof MimeNode>('nodemailer/lib/mime-node/index.js');

/** A mail to render. */
interface MailSpec {
  from: Mailbox;
  to: Mailbox[];
  cc?: Mailbox[];
  replyTo?: Mailbox;
  subject: string;
  messageId: string;
  date: Date;
  headers?: Record<string, string>;
  text?: string;
  html?: string;
  attachments?: Mail.Attachment[];
  envelopeFrom: string;
  envelopeTo: string;
}

/**
 * The raw message for one recipient: its content, with open and click tracking in the HTML when the message asked for
 * it. The To and Cc headers, which grow with the recipient list, are rendered once per message and spliced into each
 * copy, and the copy is DKIM-signed after, so a message to n recipients costs n times a one-recipient message, not n².
 */
export async function composeMessage(
  item: DeliveryItem,
  content: MessageContent,
  tracker: HtmlTracker,
): Promise<Buffer> {
  const addresses = addressLines(content);
  const raw = await render({
    from: content.from,
    to: [],
    replyTo: content.replyTo,
    subject: content.subject,
    messageId: item.headerMessageId,
    date: new Date(item.createdAt),
    headers: { ...headersOf(content), [PLACEHOLDER]: '1' },
    text: content.text,
    html: content.html === undefined ? undefined : trackedHtml(item, content.html, tracker),
    attachments: content.attachments.map((a) => ({
      filename: a.fileName,
      contentType: a.contentType,
      content: Buffer.from(a.content, 'base64'),
    })),
    envelopeFrom: item.envelopeFrom,
    envelopeTo: item.address,
  });
  const at = raw.indexOf(`${PLACEHOLDER}: 1\r\n`);
  if (at < 0) throw new Error('composing a message: the address header position was not found');
  const spliced = Buffer.concat([
    raw.subarray(0, at),
    Buffer.from(addresses),
    raw.subarray(at + PLACEHOLDER.length + 5),
  ]);
  return signDkim(spliced, item.dkim);
}

// A header name no message carries, marking where the address lines go.
// Digits only: the renderer capitalises each dash-separated part of a header name.
const PLACEHOLDER = `X-Sealpost-Addresses-${randomInt(1e9, 1e10)}`;
// The address node has no parts: its boundary is never written.
const ADDRESS_NODE_BOUNDARY = '0';
// Kept as long as the opened content is (the delivery store keeps it for the message's other recipients).
const addressCache = new WeakMap<MessageContent, string>();

/**
 * The folded To and Cc header lines of a message (each ending in CRLF), kept for its other copies. They are built by
 * the same MIME node the renderer uses, so they read exactly as a rendered message's, without rendering one.
 */
function addressLines(content: MessageContent): string {
  const hit = addressCache.get(content);
  if (hit !== undefined) return hit;
  const { to, cc } = content;
  const node = new (mimeNode())('text/plain', { newline: '\r\n', baseBoundary: ADDRESS_NODE_BOUNDARY });
  // Set, so the node does not draw a random one for lines that are dropped anyway.
  node.setHeader('Message-ID', '<addresses@localhost>');
  // The typings list strings only; the node takes address objects as the renderer passes them.
  if (to.length > 0) node.setHeader('To', to as never);
  if (cc.length > 0) node.setHeader('Cc', cc as never);
  let keep = false;
  const lines = node
    .buildHeaders()
    .split('\r\n')
    .filter((line) => (keep = /^[ \t]/.test(line) ? keep : /^(To|Cc):/i.test(line)));
  const text = lines.map((l) => `${l}\r\n`).join('');
  addressCache.set(content, text);
  return text;
}

/** A notification that holds no content of the message, addressed to the one recipient. */
export interface NotificationMail {
  from: Mailbox;
  subject: string;
  text: string;
  html: string;
}

/** The raw secure notification for one recipient. */
export async function composeNotification(item: DeliveryItem, mail: NotificationMail): Promise<Buffer> {
  const raw = await render({
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
  return signDkim(raw, item.dkim);
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
  let out = item.linkTracking ? tracker.rewriteLinks(html, item.recipientId) : html;
  if (item.openTracking) out = appendPixel(out, tracker.openPixelUrl(item.recipientId));
  return out;
}

/** Puts a 1x1 image before `</body>`, or at the end when the HTML has no body tag. */
function appendPixel(html: string, url: string): string {
  const img = `<img src="${url.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}" width="1" height="1" alt="">`;
  const at = html.toLowerCase().lastIndexOf('</body');
  return at < 0 ? html + img : html.slice(0, at) + img + html.slice(at);
}

/**
 * Renders with nodemailer's composer, the part of `sendMail` that builds the MIME tree, without the transport around
 * it: its plugin chain, address normalising and stream transport cost more than the rendering, and each drew random
 * bytes from the system. The composer writes CRLF line ends, as a message on the wire has them.
 */
function render(spec: MailSpec): Promise<Buffer> {
  return renderMime({
    from: spec.from,
    to: spec.to.length > 0 ? spec.to : undefined,
    cc: spec.cc && spec.cc.length > 0 ? spec.cc : undefined,
    replyTo: spec.replyTo,
    subject: spec.subject,
    messageId: spec.messageId,
    date: spec.date,
    headers: spec.headers,
    text: spec.text,
    html: spec.html,
    attachments: spec.attachments,
    envelope: { from: spec.envelopeFrom, to: [spec.envelopeTo] },
    // The composer would draw a few random bytes from the system for each MIME part; one pooled value serves them all.
    baseBoundary: pooledRandomBytes(8).toString('hex'),
  } as Mail.Options);
}

/**
 * What nodemailer's composer renders from `options`, byte for byte, with each text part's transfer encoding chosen
 * before the composer would detect it (see transferEncoding).
 */
export function renderMime(options: Mail.Options): Promise<Buffer> {
  const root = new (mailComposer())(options).compile();
  presetEncodings(root);
  return root.build();
}

/**
 * Sets the transfer encoding of every text part with string content the composer would encode, as the composer
 * would set it when building the headers. Set on the compiled tree, after the composer's own headers, the header
 * lands where the composer puts it, also when the text part is the message itself.
 */
function presetEncodings(node: MimeNode): void {
  const content = node.content;
  if (
    typeof content === 'string' &&
    !node.getHeader('Content-Transfer-Encoding') &&
    /^text\//i.test(String(node.getHeader('Content-Type') ?? ''))
  ) {
    const encoding = transferEncoding(content);
    if (encoding) node.setHeader('Content-Transfer-Encoding', encoding);
  }
  for (const child of node.childNodes) presetEncodings(child);
}

/**
 * The transfer encoding nodemailer's composer would choose for a text body, chosen without the composer's detection,
 * which collects every letter of the body into an array to count them (a few percent of a delivery's CPU, and as much
 * again in garbage): quoted-printable when ASCII letters outnumber control and non-ASCII characters, base64 otherwise.
 * Undefined for plain ASCII text with short lines, which the composer sends as it is.
 */
export function transferEncoding(content: string): 'quoted-printable' | 'base64' | undefined {
  if (mimeFuncs.isPlainText(content) && !mimeFuncs.hasLongerLines(content, 76)) return undefined;
  let letters = 0;
  let others = 0;
  for (let i = 0; i < content.length; i++) {
    const c = content.charCodeAt(i);
    if ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) letters++;
    else if (c <= 0x08 || c === 0x0b || c === 0x0c || (c >= 0x0e && c <= 0x1f) || c >= 0x80) others++;
  }
  return others < letters ? 'quoted-printable' : 'base64';
}
