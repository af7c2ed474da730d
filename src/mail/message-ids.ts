/**
 * Message ids (the sourceTrackingId): UUIDs of version 7 (RFC 9562), 48 bits of Unix time in milliseconds followed by
 * 74 random bits. Ids made one after another sort together, so the indexes keyed by message id grow at their end
 * instead of taking each new id on a random page: fewer pages change per commit.
 */
import { randomUUID } from 'node:crypto';

/** A new message id. */
export function newMessageId(now = Date.now()): string {
  // A version 4 UUID from Node's pooled randomness supplies the random bits; its time-less head is replaced.
  const random = randomUUID();
  const time = now.toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${random.slice(15)}`;
}
