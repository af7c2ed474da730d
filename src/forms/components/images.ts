/** Checks that a signature image really decodes before it is stored or drawn into a PDF (a broken PNG must not reach the PDF encoder). */
import { inflateSync } from 'node:zlib';

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** True for a PNG whose chunks are well-formed and whose image data inflates, or a JPEG with start and end markers. */
export function isDecodableImage(b: Buffer): boolean {
  if (b[0] === 0xff && b[1] === 0xd8)
    return b.length > 4 && b[b.length - 2] === 0xff && b[b.length - 1] === 0xd9;
  if (b.length < 8 || !b.subarray(0, 8).equals(PNG_MAGIC)) return false;
  const idat: Buffer[] = [];
  let off = 8;
  let sawHeader = false;
  while (off + 12 <= b.length) {
    const len = b.readUInt32BE(off);
    const type = b.toString('latin1', off + 4, off + 8);
    if (off + 12 + len > b.length) return false;
    if (type === 'IHDR') sawHeader = true;
    if (type === 'IDAT') idat.push(b.subarray(off + 8, off + 8 + len));
    if (type === 'IEND') break;
    off += 12 + len;
  }
  if (!sawHeader || idat.length === 0) return false;
  try {
    inflateSync(Buffer.concat(idat));
    return true;
  } catch {
    return false;
  }
}
