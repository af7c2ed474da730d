/** The sealed content of a message: everything that may hold sensitive data, encrypted as one JSON value bound to the message id. */
import type { Sealer } from '../crypto/sealer.ts';
import { heldLength, isStandIn, takeHeldBytes } from './held-attachments.ts';
import type { MessageContent, StoredAttachment } from '../delivery/model.ts';

/** What a message says, as stored (sealed) and read back by delivery and the secure page: the delivery engine's own shape. */
export type StoredContent = MessageContent;

const aad = (messageId: string) => `message:${messageId}`;

/**
 * The first byte of content sealed with its attachments as bytes: a JSON header (the content, each attachment's
 * `content` replaced by its length in `bytes`) up to a line feed, then the attachments' bytes one after another.
 * Content sealed as plain JSON (by earlier versions, or when an attachment is not canonical base64) starts with `{`.
 */
const WITH_BYTES = 0x01;
const LINE_FEED = 0x0a;
/** Base64 characters decoded at a time (whole groups of four). */
const DECODE_CHARS = 4 * 16_384;

/** An attachment's decoded bytes, made a few kilobytes at a time from its base64 (or from the held base64). */
function* decoded(base64: string): Generator<Buffer> {
  if (isStandIn(base64)) return yield* takeHeldBytes(base64);
  for (let at = 0; at < base64.length; at += DECODE_CHARS)
    yield Buffer.from(base64.slice(at, at + DECODE_CHARS), 'base64');
}

/** True for canonical base64 (no whitespace, padded): it decodes to exactly the bytes its length says. */
const canonical = (base64: string): boolean =>
  isStandIn(base64) || (base64.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(base64));

/**
 * Seals content for the message `messageId`. Attachments are decoded from base64 straight into the sealed value,
 * piece by piece, so sealing holds no second copy of them and the token is a quarter smaller than sealing their base64.
 */
export function sealContent(sealer: Sealer, messageId: string, content: StoredContent): string {
  if (content.attachments.length === 0 || !content.attachments.every((a) => canonical(a.content)))
    return sealer.seal(JSON.stringify(content), aad(messageId));
  const header = {
    ...content,
    attachments: content.attachments.map(({ content: base64, ...a }) => ({
      ...a,
      bytes: isStandIn(base64) ? heldLength(base64) : Buffer.byteLength(base64, 'base64'),
    })),
  };
  const head = Buffer.from(`${JSON.stringify(header)}\n`, 'utf8');
  return sealer.sealPieces(
    (function* () {
      yield Buffer.from([WITH_BYTES]);
      yield head;
      for (const a of content.attachments) yield* decoded(a.content);
    })(),
    aad(messageId),
    1 + head.length + header.attachments.reduce((sum, a) => sum + a.bytes, 0),
  );
}

/** Opens the sealed content of the message `messageId`. */
export function openContent(sealer: Sealer, messageId: string, sealed: string): StoredContent {
  const plain = sealer.open(sealed, aad(messageId));
  if (plain[0] !== WITH_BYTES) return JSON.parse(plain.toString('utf8')) as StoredContent;
  const end = plain.indexOf(LINE_FEED);
  const header = JSON.parse(plain.toString('utf8', 1, end)) as Omit<StoredContent, 'attachments'> & {
    attachments: (Omit<StoredAttachment, 'content'> & { bytes: number })[];
  };
  let at = end + 1;
  const attachments = header.attachments.map(({ bytes, ...a }) => {
    const part = { ...a, content: plain.toString('base64', at, at + bytes) };
    at += bytes;
    return part;
  });
  return { ...header, attachments };
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
