/** Purpose-specific keys derived from the master key (HKDF-SHA256), so that one secret never serves two uses. */
import { hkdfSync } from 'node:crypto';

/** Derives a 32-byte key for `purpose` (for example `tracking`). */
export function deriveKey(masterKey: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), `sealpost/${purpose}/v1`, 32));
}
