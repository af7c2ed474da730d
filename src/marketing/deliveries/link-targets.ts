/**
 * Tracked link targets of marketing mail as stored: sealed (a target can carry a patient or case reference), bound to
 * the row that holds them, so a sealed target copied to another send, delivery or position does not open. Targets
 * stored in clear text by an earlier version are read as they are.
 */
import type { Sealer } from '../../crypto/sealer.ts';

/** Whose link a target is: a send's link (its position in the send's content) or a delivery's clicked link. */
export type LinkOwner = { sendId: number } | { deliveryId: number };

const SEALED = /^v\d+\./;

const aad = (owner: LinkOwner, htmlId: number) =>
  'sendId' in owner
    ? `campaign-link:send:${owner.sendId}:${htmlId}`
    : `campaign-link:delivery:${owner.deliveryId}:${htmlId}`;

/** Seals the target of the link at `htmlId`. */
export function sealCampaignLink(sealer: Sealer, owner: LinkOwner, htmlId: number, url: string): string {
  return sealer.seal(url, aad(owner, htmlId));
}

/** Opens a stored target of the link at `htmlId`. */
export function openCampaignLink(sealer: Sealer, owner: LinkOwner, htmlId: number, stored: string): string {
  return SEALED.test(stored) ? sealer.openText(stored, aad(owner, htmlId)) : stored;
}
