/**
 * Turns a message received over SMTP (parsed by mailparser, plus its envelope) into the same normalized message the
 * HTTP API submits: envelope recipients decide who gets it (those not in To or Cc are Bcc), X- headers pass through,
 * and `X-Sealpost-Allow-Non-TLS` / `X-Sealpost-Force-Secure-Notification` mirror `allowNonTLS` / `forceSecureNotification`.
 */
import type { AddressObject, ParsedMail } from 'mailparser';
import { AppError } from '../errors/app-error.ts';
import type { Mailbox } from '../mail/addresses.ts';
import { holdBytes } from '../mail/held-attachments.ts';
import { canonicalHeaderName, type NormalizedMessage } from '../email/message-input.ts';

/** Header names (lower case) that switch delivery options; they are read and never delivered. */
export const OPTION_HEADERS = {
  allowNonTls: 'x-sealpost-allow-non-tls',
  forceSecure: 'x-sealpost-force-secure-notification',
} as const;

const truthy = (v: unknown) => typeof v === 'string' && /^(1|true|yes|on)$/i.test(v.trim());

function mailboxesOf(field: AddressObject | AddressObject[] | undefined): Mailbox[] {
  const list = field === undefined ? [] : Array.isArray(field) ? field : [field];
  return list
    .flatMap((o) => o.value)
    .flatMap((a) => (a.address ? [{ address: a.address, name: a.name ?? '' }] : []));
}

/** Builds the normalized message; throws AppError (mapped to an SMTP reply) when something required is missing. */
export function mailToMessage(parsed: ParsedMail, envelopeRecipients: string[]): NormalizedMessage {
  const from = mailboxesOf(parsed.from)[0];
  if (!from) throw new AppError('request.invalid', 'the message has no From address');
  const subject = parsed.subject?.trim();
  if (!subject) throw new AppError('request.invalid', 'the message has no Subject');
  if (parsed.text === undefined && parsed.html === false)
    throw new AppError('request.invalid', 'the message has no text or HTML body');

  const envelope = new Map(envelopeRecipients.map((a) => [a.toLowerCase(), a]));
  const pick = (boxes: Mailbox[]) => boxes.filter((b) => envelope.delete(b.address.toLowerCase()));
  const to = pick(mailboxesOf(parsed.to));
  const cc = pick(mailboxesOf(parsed.cc));
  const bcc = [...envelope.values()].map((address) => ({ address, name: '' }));
  if (to.length + cc.length + bcc.length === 0)
    throw new AppError('request.invalid', 'the message has no recipients');

  const headers: Record<string, string> = {};
  for (const line of parsed.headerLines) {
    const lower = line.key.toLowerCase();
    if (lower === OPTION_HEADERS.allowNonTls || lower === OPTION_HEADERS.forceSecure) continue;
    if (lower.startsWith('x-') || lower === 'list-unsubscribe' || lower === 'list-unsubscribe-post') {
      const value = line.line
        .slice(line.line.indexOf(':') + 1)
        .replace(/\r?\n[ \t]+/g, ' ')
        .trim();
      headers[canonicalHeaderName(line.key)] = value;
    }
  }
  const header = (name: string) => parsed.headers.get(name);
  return {
    to,
    cc,
    bcc,
    from,
    replyTo: mailboxesOf(parsed.replyTo)[0],
    subject,
    headers,
    text: parsed.text,
    html: parsed.html === false ? undefined : parsed.html,
    attachments: parsed.attachments.map((a, i) => ({
      fileName: a.filename ?? `attachment-${i + 1}`,
      contentType: a.contentType || 'application/octet-stream',
      // Held as the parsed bytes: a base64 copy of a large attachment would only be decoded again to be sealed.
      content: holdBytes(a.content),
    })),
    allowNonTLS: truthy(header(OPTION_HEADERS.allowNonTls)),
    forceSecureNotification: truthy(header(OPTION_HEADERS.forceSecure)),
  };
}
