/**
 * Per-delivery return paths (VERP): the envelope sender of each delivery is an address on the bounce domain that names
 * the delivery and carries an HMAC-SHA256 tag under the return-path key, `b-t1f3-<24 hex>@bounces.example.org` for
 * recipient 0x1f3 of a transactional message (`m` for a marketing delivery). A bounce or feedback report sent to it
 * after the conversation is matched to that delivery, and only to it: an address whose tag does not match is refused.
 * Letters are lower case, so a server that changes the case of the local part does not break the match.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Which kind of delivery a return path names: `t` a transactional recipient, `m` a marketing delivery. */
export type ReturnPathKind = 't' | 'm';

/** The delivery a return path names. */
export interface ReturnPathTarget {
  kind: ReturnPathKind;
  id: number;
}

const TAG_BYTES = 12;
const LOCAL_PART = /^b-([tm])([0-9a-z]{1,11})-([0-9a-f]{24})$/;

function tag(key: Buffer, kind: ReturnPathKind, id36: string): Buffer {
  return createHmac('sha256', key).update(`return-path.${kind}.${id36}`).digest().subarray(0, TAG_BYTES);
}

/** The bounce domain as configured, lower case; empty when return paths are off. */
export function bounceDomainOf(configured: string | undefined): string {
  return (configured ?? '').trim().toLowerCase().replace(/\.$/, '');
}

/** The return path of a delivery on `domain`. */
export function returnPath(domain: string, key: Buffer, target: ReturnPathTarget): string {
  const id36 = target.id.toString(36);
  return `b-${target.kind}${id36}-${tag(key, target.kind, id36).toString('hex')}@${domain}`;
}

/** The envelope sender of a delivery: its return path when a bounce domain is configured, else `fallback` (the From address). */
export function envelopeSender(
  configuredDomain: string | undefined,
  key: Buffer,
  target: ReturnPathTarget,
  fallback: string,
): string {
  const domain = bounceDomainOf(configuredDomain);
  return domain ? returnPath(domain, key, target) : fallback;
}

/** The delivery an address on `domain` names, or null when it is not on the domain, malformed, or its tag does not match. */
export function readReturnPath(domain: string, key: Buffer, address: string): ReturnPathTarget | null {
  const at = address.lastIndexOf('@');
  if (at < 1 || address.slice(at + 1).toLowerCase() !== domain) return null;
  const m = LOCAL_PART.exec(address.slice(0, at).toLowerCase());
  if (!m) return null;
  const kind = m[1] as ReturnPathKind;
  const id = parseInt(m[2]!, 36);
  if (!Number.isSafeInteger(id) || id.toString(36) !== m[2]) return null;
  const given = Buffer.from(m[3]!, 'hex');
  if (!timingSafeEqual(given, tag(key, kind, m[2]!))) return null;
  return { kind, id };
}
