/** The sealed content of a message: everything that may hold sensitive data, encrypted as one JSON value bound to the message id. */
import type { Sealer } from '../crypto/sealer.ts';
import type { Mailbox } from './addresses.ts';
import type { AttachmentInput } from './message-input.ts';

/** What a message says, as stored (sealed) and read back by delivery and the secure page. */
export interface StoredContent {
  subject: string;
  from: Mailbox;
  replyTo?: Mailbox;
  to: Mailbox[];
  cc: Mailbox[];
  headers: Record<string, string>;
  text?: string;
  html?: string;
  attachments: AttachmentInput[];
  unsubscribeUrl?: string;
}

const aad = (messageId: string) => `message:${messageId}`;

/** Seals content for the message `messageId`. */
export function sealContent(sealer: Sealer, messageId: string, content: StoredContent): string {
  return sealer.seal(JSON.stringify(content), aad(messageId));
}

/** Opens the sealed content of the message `messageId`. */
export function openContent(sealer: Sealer, messageId: string, sealed: string): StoredContent {
  return JSON.parse(sealer.openText(sealed, aad(messageId))) as StoredContent;
}
