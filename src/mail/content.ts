/** The sealed content of a message: everything that may hold sensitive data, encrypted as one JSON value bound to the message id. */
import type { Sealer } from '../crypto/sealer.ts';
import type { MessageContent } from '../delivery/model.ts';

/** What a message says, as stored (sealed) and read back by delivery and the secure page: the delivery engine's own shape. */
export type StoredContent = MessageContent;

const aad = (messageId: string) => `message:${messageId}`;

/** Seals content for the message `messageId`. */
export function sealContent(sealer: Sealer, messageId: string, content: StoredContent): string {
  return sealer.seal(JSON.stringify(content), aad(messageId));
}

/** Opens the sealed content of the message `messageId`. */
export function openContent(sealer: Sealer, messageId: string, sealed: string): StoredContent {
  return JSON.parse(sealer.openText(sealed, aad(messageId))) as StoredContent;
}
