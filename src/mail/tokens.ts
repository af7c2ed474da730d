/**
 * Signed tracking tokens for open pixels and click links. A token names what it tracks (a recipient, and for clicks a
 * link position) and carries an HMAC-SHA256 tag under the tracking key, so tokens cannot be guessed or enumerated.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** What a token points at. */
export type TrackingTarget =
  { kind: 'open'; recipientId: number } | { kind: 'click'; recipientId: number; position: number };

const TAG_BYTES = 16;

function tag(key: Buffer, payload: string): Buffer {
  return createHmac('sha256', key).update(payload).digest().subarray(0, TAG_BYTES);
}

function payloadOf(t: TrackingTarget): string {
  return t.kind === 'open'
    ? `o.${t.recipientId.toString(36)}`
    : `c.${t.recipientId.toString(36)}.${t.position.toString(36)}`;
}

/** Makes the token for a target. */
export function signTracking(key: Buffer, target: TrackingTarget): string {
  return signPayload(key, payloadOf(target));
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

/** Verifies a token; returns its target, or null when it is malformed or its tag does not match. */
export function verifyTracking(key: Buffer, token: string): TrackingTarget | null {
  const payload = verifyPayload(key, token, /^(o\.[0-9a-z]{1,12}|c\.[0-9a-z]{1,12}\.[0-9a-z]{1,6})$/);
  if (payload === null) return null;
  const [kind, id, position] = payload.split('.');
  return kind === 'o'
    ? { kind: 'open', recipientId: parseInt(id!, 36) }
    : { kind: 'click', recipientId: parseInt(id!, 36), position: parseInt(position!, 36) };
}

/** The public URLs of the open pixel and of a click link. */
export const trackingUrls = {
  open: (publicUrl: string, key: Buffer, recipientId: number) =>
    `${publicUrl}/t/o/${signTracking(key, { kind: 'open', recipientId })}.gif`,
  click: (publicUrl: string, key: Buffer, recipientId: number, position: number) =>
    `${publicUrl}/t/c/${signTracking(key, { kind: 'click', recipientId, position })}`,
};
