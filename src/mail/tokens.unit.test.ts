import { describe, expect, it } from 'vitest';
import { signTracking, verifyTracking } from './tokens.ts';

const KEY = Buffer.alloc(32, 1);

describe('tracking tokens', () => {
  it('round-trips an open and a click target', () => {
    expect(verifyTracking(KEY, signTracking(KEY, { kind: 'open', recipientId: 12345 }))).toEqual({
      kind: 'open',
      recipientId: 12345,
    });
    expect(verifyTracking(KEY, signTracking(KEY, { kind: 'click', recipientId: 7, position: 40 }))).toEqual({
      kind: 'click',
      recipientId: 7,
      position: 40,
    });
  });

  it('refuses a token signed under another key', () => {
    expect(
      verifyTracking(KEY, signTracking(Buffer.alloc(32, 2), { kind: 'open', recipientId: 1 })),
    ).toBeNull();
  });

  it('refuses a token whose target was changed', () => {
    const token = signTracking(KEY, { kind: 'open', recipientId: 1 });
    expect(verifyTracking(KEY, token.replace(/^o\.1\./, 'o.2.'))).toBeNull();
  });

  it('refuses a second spelling of the same tag (its unused last bits changed)', () => {
    const token = signTracking(KEY, { kind: 'open', recipientId: 1 });
    const last = token.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sibling = alphabet[alphabet.indexOf(last) ^ 1]!;
    expect(Buffer.from(token.slice(-22, -1) + sibling, 'base64url')).toEqual(
      Buffer.from(token.slice(-22), 'base64url'),
    );
    expect(verifyTracking(KEY, token.slice(0, -1) + sibling)).toBeNull();
  });
});
