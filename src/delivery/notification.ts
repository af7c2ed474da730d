/**
 * Secure notifications: what a recipient gets instead of the message when the next hop cannot take it over TLS or the
 * sender asked for it. The notification says who the message is from and that it waits on a secure page; it carries no
 * subject and no content. The link holds a 256-bit random token; only its SHA-256 is stored, with an expiry.
 */
import { createHash, randomBytes } from 'node:crypto';
import { escapeHtml } from '../markup/escape.ts';
import type { Mailbox, MessageContent } from './model.ts';
import type { NotificationMail } from './compose.ts';

/** Why the recipient gets a notification. */
export type NotificationReason = 'tls-unavailable' | 'sender-requested';

/** A freshly issued secure link. */
export interface SecureLink {
  url: string;
  /** SHA-256 of the token, hex: what the server stores to find the message when the link is opened. */
  tokenHash: string;
  expiresAt: number;
}

/** Makes a new secure link under `publicUrl` valid for `ttlHours`. */
export function issueSecureLink(publicUrl: string, ttlHours: number, now: number): SecureLink {
  const token = randomBytes(32).toString('base64url');
  return {
    url: `${publicUrl}/s/${token}`,
    tokenHash: hashSecureToken(token),
    expiresAt: now + ttlHours * 3_600_000,
  };
}

/** The stored form of a secure token. */
export function hashSecureToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The notification mail: from the message's sender, naming the sender, the link and its expiry, and nothing else. */
export function notificationMail(
  content: MessageContent,
  link: SecureLink,
  reason: NotificationReason,
): NotificationMail {
  const sender = senderText(content.from);
  const expires = new Date(link.expiresAt).toUTCString();
  const why =
    reason === 'tls-unavailable'
      ? 'Your mail server could not receive it over an encrypted connection, so it is waiting for you on a secure page.'
      : 'The sender asked for it to be read on a secure page.';
  const text = [
    `${sender} sent you a secure message.`,
    '',
    why,
    '',
    `Read it here: ${link.url}`,
    '',
    `The link works until ${expires}. If you did not expect a message from this sender, you can ignore this email.`,
    '',
  ].join('\r\n');
  const html = [
    '<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">',
    `<p>${escapeHtml(sender)} sent you a secure message.</p>`,
    `<p>${escapeHtml(why)}</p>`,
    `<p><a href="${escapeHtml(link.url)}">Read the secure message</a></p>`,
    `<p style="color:#555;font-size:90%">The link works until ${escapeHtml(expires)}. `,
    'If you did not expect a message from this sender, you can ignore this email.</p>',
    '</body></html>',
  ].join('');
  return { from: content.from, subject: `Secure message from ${sender}`, text, html };
}

function senderText(from: Mailbox): string {
  return from.name ? `${from.name} (${from.address})` : from.address;
}
