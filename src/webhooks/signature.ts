/**
 * Webhook signatures. Each POST carries `Sealpost-Event-Id`, `Sealpost-Timestamp` (unix seconds) and
 * `Sealpost-Signature: v1=<hex>[,v1=<hex>]`: one HMAC-SHA256 per active secret (two during a rotation) of the string
 * `<event id>.<timestamp>.<body>`, keyed by the secret's UTF-8 bytes. docs/webhooks.md shows how receivers check it.
 */
import { createHmac, randomBytes } from 'node:crypto';

/** The headers of a signed delivery. */
export const SIGNATURE_HEADERS = {
  eventId: 'sealpost-event-id',
  timestamp: 'sealpost-timestamp',
  signature: 'sealpost-signature',
} as const;

/** A new signing secret: `whsec_` and 32 random bytes in base64url. */
export function generateSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** The hex HMAC-SHA256 of `<eventId>.<timestamp>.<body>` under `secret`. */
export function signatureOf(secret: string, eventId: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${eventId}.${timestamp}.${body}`).digest('hex');
}

/** The Sealpost-Signature header value: `v1=<hex>` for each secret, comma-separated, newest secret first. */
export function signatureHeader(
  secrets: readonly string[],
  eventId: string,
  timestamp: number,
  body: string,
): string {
  return secrets.map((s) => `v1=${signatureOf(s, eventId, timestamp, body)}`).join(',');
}
