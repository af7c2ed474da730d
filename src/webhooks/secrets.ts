/** Signing secrets at rest: sealed under the master key and bound to their endpoint, so a sealed secret cannot be moved to another. */
import type { Sealer } from '../crypto/sealer.ts';

const aad = (endpointId: string) => `webhook:${endpointId}`;

/** Seals a signing secret of the endpoint `endpointId`. */
export function sealSecret(sealer: Sealer, endpointId: string, secret: string): string {
  return sealer.seal(secret, aad(endpointId));
}

/** Opens a sealed signing secret of the endpoint `endpointId`. */
export function openSecret(sealer: Sealer, endpointId: string, sealed: string): string {
  return sealer.openText(sealed, aad(endpointId));
}
