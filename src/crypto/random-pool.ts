/**
 * Small random values cut from a block of random bytes drawn at once: one call into the operating system's generator
 * serves hundreds of nonces or boundaries instead of one each. A block is never refilled in place: a value handed out
 * keeps its bytes.
 */
import { randomBytes } from 'node:crypto';

const BLOCK_BYTES = 4096;

let block = Buffer.alloc(0);
let offset = 0;

/** `n` fresh random bytes. */
export function pooledRandomBytes(n: number): Buffer {
  if (n > BLOCK_BYTES / 8) return randomBytes(n);
  if (offset + n > block.length) {
    block = randomBytes(BLOCK_BYTES);
    offset = 0;
  }
  offset += n;
  return block.subarray(offset - n, offset);
}
