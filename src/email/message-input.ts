/**
 * Turns a `data.message` object as clients send it into a normalized message, or rejects it with a 400 naming the
 * field: recipients and cc/bcc as mailboxes, only X- (and List-Unsubscribe) headers kept, no line breaks in any
 * header, HTML that arrives base64-encoded decoded, attachments' base64 checked leniently.
 */
import { AppError } from '../errors/app-error.ts';
import { isHeld, isStandIn, letGo } from '../mail/held-attachments.ts';
import { parseMailbox, type Mailbox } from '../mail/addresses.ts';
import type { MessageBody, TemplatedMessageBody } from './email.schemas.ts';

/** An attachment, with its content as canonical base64. */
export interface AttachmentInput {
  fileName: string;
  contentType: string;
  content: string;
}

/** A validated message, ready for submission. */
export interface NormalizedMessage {
  to: Mailbox[];
  cc: Mailbox[];
  bcc: Mailbox[];
  from: Mailbox;
  replyTo?: Mailbox;
  subject: string;
  /** X- headers (and List-Unsubscribe, List-Unsubscribe-Post), with their names in canonical case. */
  headers: Record<string, string>;
  text?: string;
  html?: string;
  attachments: AttachmentInput[];
  allowNonTLS: boolean;
  forceSecureNotification: boolean;
}

/** Per-send options from `data` beside the message. */
export interface TrackingOptions {
  openTracking: boolean;
  linkTracking: boolean;
  unsubscribeUrl?: string;
}

const PASSTHROUGH = new Set(['list-unsubscribe', 'list-unsubscribe-post']);
const KNOWN = new Set(['subject', 'from', 'reply-to']);

const bad = (field: string, message: string): AppError =>
  new AppError('request.invalid', `${field} ${message}`, { details: [{ field, message }] });

/** `x-custom-header` → `X-Custom-Header`. */
export function canonicalHeaderName(name: string): string {
  return name
    .split('-')
    .map((part) => (part ? part[0]!.toUpperCase() + part.slice(1).toLowerCase() : part))
    .join('-');
}

function noLineBreaks(field: string, value: string): string {
  if (/[\r\n]/.test(value)) throw bad(field, 'must not contain line breaks');
  return value;
}

function mailboxes(field: string, list: readonly string[] | undefined): Mailbox[] {
  return (list ?? []).map((entry, i) => {
    const m = parseMailbox(entry);
    if (!m) throw bad(`${field}[${i}]`, `is not a valid address: ${JSON.stringify(entry.slice(0, 100))}`);
    return m;
  });
}

/** True when text holds control characters other than tab, line feed and carriage return (decoded binary, not text). */
function hasControlCharacters(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 32 && c !== 9 && c !== 10 && c !== 13) return true;
  }
  return false;
}

/** Decodes `text/html` when it is valid base64 of UTF-8 text; otherwise returns it as given. */
export function decodeMaybeBase64Html(value: string): string {
  // Markup is never base64 (which has no `<`): the common case leaves at once.
  if (value.includes('<')) return value;
  const compact = value.replace(/\s+/g, '');
  if (compact.length < 8 || !/^[A-Za-z0-9+/]+={0,2}$/.test(compact) || compact.length % 4 === 1) return value;
  const bytes = Buffer.from(compact, 'base64');
  const text = bytes.toString('utf8');
  if (text.includes('\uFFFD') || hasControlCharacters(text)) return value;
  if (Buffer.from(text, 'utf8').toString('base64').replace(/=+$/, '') !== compact.replace(/=+$/, ''))
    return value;
  return text;
}

/** Checks base64 leniently (whitespace and missing padding tolerated); returns canonical base64 or null. */
export function canonicalBase64(value: string): string | null {
  // An attachment read as the body arrived was checked then; a stand-in no longer held is a request that ended.
  if (isStandIn(value)) return isHeld(value) ? value : null;
  const compact = /\s/.test(value) ? value.replace(/\s+/g, '') : value;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.replace(/=+$/, '').length % 4 === 1) return null;
  // Already whole groups of four: kept as sent. Decoding and encoding again would hold two more copies of an
  // attachment that may be tens of megabytes, only to fix padding it already has.
  if (compact.length % 4 === 0) return compact;
  return Buffer.from(compact, 'base64').toString('base64');
}

function customHeaders(headers: Record<string, unknown>, field: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (KNOWN.has(lower)) continue;
    if (!lower.startsWith('x-') && !PASSTHROUGH.has(lower)) continue;
    if (!/^[A-Za-z0-9-]+$/.test(name)) throw bad(`${field}.${name}`, 'is not a valid header name');
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean')
      throw bad(`${field}.${name}`, 'must be a string');
    out[canonicalHeaderName(name)] = noLineBreaks(`${field}.${name}`, String(value));
  }
  return out;
}

/** Validates the parts every message has (everything but content). `path` prefixes field names (`data.message`). */
function normalizeEnvelope(m: TemplatedMessageBody, path: string): Omit<NormalizedMessage, 'text' | 'html'> {
  const headers = m.headers as Record<string, unknown>;
  const from = parseMailbox(String(m.headers.from));
  if (!from) throw bad(`${path}.headers.from`, 'is not a valid address');
  const replyToText = m.headers['reply-to'];
  const replyTo = replyToText ? parseMailbox(replyToText) : undefined;
  if (replyToText && !replyTo) throw bad(`${path}.headers.reply-to`, 'is not a valid address');
  const attachments = (m.attachments ?? []).map((a, i) => {
    const content = canonicalBase64(a.content);
    if (content === null) throw bad(`${path}.attachments[${i}].content`, 'is not valid base64');
    return {
      fileName: noLineBreaks(`${path}.attachments[${i}].fileName`, a.fileName),
      contentType: noLineBreaks(`${path}.attachments[${i}].contentType`, a.contentType),
      content,
    };
  });
  return {
    to: mailboxes(`${path}.recipients`, m.recipients),
    cc: mailboxes(`${path}.cc`, m.cc),
    bcc: mailboxes(`${path}.bcc`, m.bcc),
    from,
    replyTo: replyTo ?? undefined,
    subject: noLineBreaks(`${path}.headers.subject`, m.headers.subject),
    headers: customHeaders(headers, `${path}.headers`),
    attachments,
    allowNonTLS: m.allowNonTLS === true,
    forceSecureNotification: m.forceSecureNotification === true,
  };
}

/** Normalizes a message with content (POST /messages, /bulk_messages). */
export function normalizeMessage(m: MessageBody, path = 'data.message'): NormalizedMessage {
  const envelope = normalizeEnvelope(m, path);
  const text = m.content['text/plain'];
  const html =
    m.content['text/html'] === undefined ? undefined : decodeMaybeBase64Html(m.content['text/html']);
  if (text === undefined && html === undefined)
    throw bad(`${path}.content`, 'must have text/plain or text/html');
  return { ...envelope, text, html };
}

/** Normalizes the message of a templated send; the content comes from the rendered template. */
export function normalizeTemplatedMessage(
  m: TemplatedMessageBody,
  rendered: { html: string; text: string; subject: string },
  path = 'data.message',
): NormalizedMessage {
  const envelope = normalizeEnvelope({ ...m, headers: { ...m.headers, subject: rendered.subject } }, path);
  return { ...envelope, html: rendered.html, text: rendered.text };
}

/**
 * Empties a message's attachments once another copy of them is made (normalized, or sealed), so that copy is the only
 * one left to hold: an attachment may be tens of megabytes, and a request waits for its commit with its body in hand.
 */
export function releaseAttachments(m: { attachments?: { content: string }[] }): void {
  for (const a of m.attachments ?? []) a.content = '';
}

/** Empties a message's attachments once sealed, letting the bytes held for them go too. */
export function releaseSealedAttachments(m: { attachments?: { content: string }[] }): void {
  letGo((m.attachments ?? []).map((a) => a.content).filter(isStandIn));
  releaseAttachments(m);
}

/** Tracking options from `data`: both on by default; `override_*` switch them for this send. */
export function trackingOptions(data: {
  override_open_tracking?: boolean;
  override_link_tracking?: boolean;
  unsubscribe_url?: string;
}): TrackingOptions {
  if (data.unsubscribe_url !== undefined) noLineBreaks('data.unsubscribe_url', data.unsubscribe_url);
  return {
    openTracking: data.override_open_tracking ?? true,
    linkTracking: data.override_link_tracking ?? true,
    unsubscribeUrl: data.unsubscribe_url,
  };
}
