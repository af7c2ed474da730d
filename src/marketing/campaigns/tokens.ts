/**
 * Signed tokens of marketing mail: the open pixel, each tracked link, the unsubscribe link and the preference page link of one delivery. They use
 * the tracking key and token format of transactional tracking under their own prefixes, so a token of one kind never
 * passes as another.
 */
import { signPayload, verifyPayload } from '../../mail/tokens.ts';

/** What a marketing token points at. */
export type MarketingTarget =
  | { kind: 'open'; deliveryId: number }
  | { kind: 'click'; deliveryId: number; position: number }
  | { kind: 'unsubscribe'; deliveryId: number }
  | { kind: 'preferences'; deliveryId: number };

const SHAPE = /^(mo\.[0-9a-z]{1,12}|mc\.[0-9a-z]{1,12}\.[0-9a-z]{1,6}|m[up]\.[0-9a-z]{1,12})$/;

const PREFIX = { open: 'mo', unsubscribe: 'mu', preferences: 'mp' } as const;
const KIND = { mo: 'open', mu: 'unsubscribe', mp: 'preferences' } as const;

function payloadOf(t: MarketingTarget): string {
  const id = t.deliveryId.toString(36);
  if (t.kind === 'click') return `mc.${id}.${t.position.toString(36)}`;
  return `${PREFIX[t.kind]}.${id}`;
}

/** Verifies a marketing token; null when it is malformed or forged. */
export function verifyMarketingToken(key: Buffer, token: string): MarketingTarget | null {
  const payload = verifyPayload(key, token, SHAPE);
  if (payload === null) return null;
  const [kind, id, position] = payload.split('.');
  const deliveryId = parseInt(id!, 36);
  if (kind === 'mc') return { kind: 'click', deliveryId, position: parseInt(position!, 36) };
  return { kind: KIND[kind as keyof typeof KIND], deliveryId };
}

const sign = (key: Buffer, t: MarketingTarget) => signPayload(key, payloadOf(t));

/** Public URLs of marketing mail. */
export const marketingUrls = {
  open: (publicUrl: string, key: Buffer, deliveryId: number) =>
    `${publicUrl}/t/m/o/${sign(key, { kind: 'open', deliveryId })}.gif`,
  click: (publicUrl: string, key: Buffer, deliveryId: number, position: number) =>
    `${publicUrl}/t/m/c/${sign(key, { kind: 'click', deliveryId, position })}`,
  unsubscribe: (publicUrl: string, key: Buffer, deliveryId: number) =>
    `${publicUrl}/u/${sign(key, { kind: 'unsubscribe', deliveryId })}`,
  preferences: (publicUrl: string, key: Buffer, deliveryId: number) =>
    `${publicUrl}/p/${sign(key, { kind: 'preferences', deliveryId })}`,
};
