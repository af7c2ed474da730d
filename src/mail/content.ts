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

const SEALED = /^v\d+\./;

/** Seals a tracked link's target (it can carry a patient or case reference), bound to its message and position. */
export function sealLinkTarget(sealer: Sealer, messageId: string, position: number, url: string): string {
  return sealer.seal(url, `link:${messageId}:${position}`);
}

/** Opens a tracked link's target; a target stored in clear text by an earlier version is returned as it is. */
export function openLinkTarget(sealer: Sealer, messageId: string, position: number, stored: string): string {
  return SEALED.test(stored) ? sealer.openText(stored, `link:${messageId}:${position}`) : stored;
}

/** Seals a message's X- headers as stored beside the content (receipts and webhooks show them). */
export function sealCustomHeaders(
  sealer: Sealer,
  messageId: string,
  headers: Record<string, string>,
): string {
  return sealer.seal(JSON.stringify(headers), `headers:${messageId}`);
}

/** Opens a message's X- headers; headers stored in clear text by an earlier version are read as they are. */
export function openCustomHeaders(
  sealer: Sealer,
  messageId: string,
  stored: string | null,
): Record<string, string> {
  if (!stored) return {};
  return JSON.parse(SEALED.test(stored) ? sealer.openText(stored, `headers:${messageId}`) : stored) as Record<
    string,
    string
  >;
}
