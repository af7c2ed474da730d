import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSealer } from './sealer.ts';

describe('sealer', () => {
  const sealer = createSealer(randomBytes(32));

  it('round-trips text and bytes without leaving the plain text in the token', () => {
    const token = sealer.seal('patient record 42');
    expect(token).not.toContain('patient');
    expect(sealer.openText(token)).toBe('patient record 42');
    expect(sealer.open(sealer.seal(Buffer.from([0, 1, 2]))).equals(Buffer.from([0, 1, 2]))).toBe(true);
  });

  it('round-trips values of every length, whole groups of three bytes or not', () => {
    for (let n = 0; n < 40; n++) {
      const plain = randomBytes(n);
      expect(sealer.open(sealer.seal(plain, 'row:1'), 'row:1').equals(plain)).toBe(true);
    }
  });

  it('writes a large token of a known length into one buffer, the same token as without, and checks the length', () => {
    const pieces = [randomBytes(700_000), randomBytes(3), randomBytes(900_001)];
    const length = pieces.reduce((n, p) => n + p.length, 0);
    const token = sealer.sealPieces(pieces, 'row:1', length);
    expect(sealer.open(token, 'row:1').equals(Buffer.concat(pieces))).toBe(true);
    expect(token.length).toBe(sealer.sealPieces(pieces, 'row:1').length);
    expect(() => sealer.sealPieces(pieces, 'row:1', length + 3)).toThrow('shorter');
    expect(() => sealer.sealPieces(pieces, 'row:1', length - 3)).toThrow('longer');
  });

  it('seals pieces into the token of their concatenation, across piece and run boundaries', () => {
    for (const sizes of [[], [0], [1, 2], [65_537, 3, 131_075], [200_000]]) {
      const pieces = sizes.map((n) => randomBytes(n));
      const token = sealer.sealPieces(pieces, 'row:1');
      expect(sealer.open(token, 'row:1').equals(Buffer.concat(pieces))).toBe(true);
      expect(token.length).toBe(sealer.seal(Buffer.concat(pieces), 'row:1').length);
    }
  });

  it('uses a fresh nonce for every value', () => {
    expect(sealer.seal('same')).not.toBe(sealer.seal('same'));
  });

  it('refuses a tampered token, another key, or other associated data', () => {
    const token = sealer.seal('x', 'row:1');
    // A character in the middle carries six whole bits (the last one may carry only padding bits).
    const middle = Math.floor(token.length / 2);
    const tampered = token.slice(0, middle) + (token[middle] === 'A' ? 'B' : 'A') + token.slice(middle + 1);
    expect(() => sealer.open(tampered, 'row:1')).toThrow();
    expect(() => createSealer(randomBytes(32)).open(token, 'row:1')).toThrow();
    expect(() => sealer.open(token, 'row:2')).toThrow();
    expect(sealer.openText(token, 'row:1')).toBe('x');
  });
});
