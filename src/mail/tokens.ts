/**
 * Signed tokens of outbound mail, keyed by its kind: the open pixel and click links of transactional mail, and the
 * open pixel, click links, unsubscribe link, preference page link and view-in-browser link of marketing mail. A token names what it points
 * at and carries an HMAC-SHA256 tag under the tracking key, so tokens cannot be guessed or enumerated; each kind signs
 * under prefixes of its own (`o`, `c`; `mo`, `mc`, `mu`, `mp`, `mv`), so a token of one kind never passes as another.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { MailKindName } from '../delivery/kind.ts';

/** What the tokens of each kind point at: a transactional recipient, or a marketing delivery. */
export interface TokenTargets {
  transactional:
    { kind: 'open'; recipientId: number } | { kind: 'click'; recipientId: number; position: number };
  marketing:
    | { kind: 'open'; deliveryId: number }
    | { kind: 'click'; deliveryId: number; position: number }
    | { kind: 'unsubscribe'; deliveryId: number }
    | { kind: 'preferences'; deliveryId: number }
    | { kind: 'view'; deliveryId: number };
}

/** What a token of kind `K` points at. */
export type TokenTarget<K extends MailKindName> = TokenTargets[K];

/** How a kind's targets are written into a payload and read back from one. */
interface Codec<T> {
  /** The payloads of the kind's tokens, anchored. */
  shape: RegExp;
  payloadOf(target: T): string;
  targetOf(parts: string[]): T;
}

const MARKETING_PREFIX = { open: 'mo', unsubscribe: 'mu', preferences: 'mp', view: 'mv' } as const;
const MARKETING_KIND = { mo: 'open', mu: 'unsubscribe', mp: 'preferences', mv: 'view' } as const;

const codecs: { [K in MailKindName]: Codec<TokenTargets[K]> } = {
  transactional: {
    shape: /^(o\.[0-9a-z]{1,12}|c\.[0-9a-z]{1,12}\.[0-9a-z]{1,6})$/,
    payloadOf: (t) =>
      t.kind === 'open'
        ? `o.${t.recipientId.toString(36)}`
        : `c.${t.recipientId.toString(36)}.${t.position.toString(36)}`,
    targetOf: ([kind, id, position]) =>
      kind === 'o'
        ? { kind: 'open', recipientId: parseInt(id!, 36) }
        : { kind: 'click', recipientId: parseInt(id!, 36), position: parseInt(position!, 36) },
  },
  marketing: {
    shape: /^(mo\.[0-9a-z]{1,12}|mc\.[0-9a-z]{1,12}\.[0-9a-z]{1,6}|m[upv]\.[0-9a-z]{1,12})$/,
    payloadOf: (t) => {
      const id = t.deliveryId.toString(36);
      return t.kind === 'click' ? `mc.${id}.${t.position.toString(36)}` : `${MARKETING_PREFIX[t.kind]}.${id}`;
    },
    targetOf: ([kind, id, position]) => {
      const deliveryId = parseInt(id!, 36);
      if (kind === 'mc') return { kind: 'click', deliveryId, position: parseInt(position!, 36) };
      return { kind: MARKETING_KIND[kind as keyof typeof MARKETING_KIND], deliveryId };
    },
  },
};

const TAG_BYTES = 16;

function tag(key: Buffer, payload: string): Buffer {
  return createHmac('sha256', key).update(payload).digest().subarray(0, TAG_BYTES);
}

/** Makes the token of a kind's target. */
export function signToken<K extends MailKindName>(key: Buffer, mail: K, target: TokenTargets[K]): string {
  return signPayload(key, (codecs[mail] as Codec<TokenTargets[K]>).payloadOf(target));
}

/** Verifies a token of a kind; returns its target, or null when it is malformed, forged or another kind's. */
export function verifyToken<K extends MailKindName>(
  key: Buffer,
  mail: K,
  token: string,
): TokenTargets[K] | null {
  const codec = codecs[mail] as Codec<TokenTargets[K]>;
  const payload = verifyPayload(key, token, codec.shape);
  return payload === null ? null : codec.targetOf(payload.split('.'));
}

/** A payload (letters, digits and dots) followed by its tag: the token format every tracked URL uses. */
export function signPayload(key: Buffer, payload: string): string {
  return `${payload}.${tag(key, payload).toString('base64url')}`;
}

/** The payload of a token whose tag matches, or null. The payload must match `shape` (anchored by the caller). */
export function verifyPayload(key: Buffer, token: string, shape: RegExp): string | null {
  const dot = token.lastIndexOf('.');
  if (dot < 1) return null;
  const payload = token.slice(0, dot);
  if (!shape.test(payload) || !/^[A-Za-z0-9_-]{22}$/.test(token.slice(dot + 1))) return null;
  // Compared as text, so a tag whose unused trailing bits differ (a second spelling of the same bytes) is refused too.
  const given = Buffer.from(token.slice(dot + 1), 'latin1');
  const expected = Buffer.from(tag(key, payload).toString('base64url'), 'latin1');
  return given.length === expected.length && timingSafeEqual(given, expected) ? payload : null;
}

/** The public URLs of each kind's tokens. */
export const tokenUrls = {
  transactional: {
    open: (publicUrl: string, key: Buffer, recipientId: number) =>
      `${publicUrl}/t/o/${signToken(key, 'transactional', { kind: 'open', recipientId })}.gif`,
    click: (publicUrl: string, key: Buffer, recipientId: number, position: number) =>
      `${publicUrl}/t/c/${signToken(key, 'transactional', { kind: 'click', recipientId, position })}`,
  },
  marketing: {
    open: (publicUrl: string, key: Buffer, deliveryId: number) =>
      `${publicUrl}/t/m/o/${signToken(key, 'marketing', { kind: 'open', deliveryId })}.gif`,
    click: (publicUrl: string, key: Buffer, deliveryId: number, position: number) =>
      `${publicUrl}/t/m/c/${signToken(key, 'marketing', { kind: 'click', deliveryId, position })}`,
    unsubscribe: (publicUrl: string, key: Buffer, deliveryId: number) =>
      `${publicUrl}/u/${signToken(key, 'marketing', { kind: 'unsubscribe', deliveryId })}`,
    preferences: (publicUrl: string, key: Buffer, deliveryId: number) =>
      `${publicUrl}/p/${signToken(key, 'marketing', { kind: 'preferences', deliveryId })}`,
    view: (publicUrl: string, key: Buffer, deliveryId: number) =>
      `${publicUrl}/v/${signToken(key, 'marketing', { kind: 'view', deliveryId })}`,
  },
};
