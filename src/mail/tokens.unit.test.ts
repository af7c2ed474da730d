import { describe, expect, it } from 'vitest';
import { signToken, tokenUrls, verifyToken } from './tokens.ts';

const KEY = Buffer.alloc(32, 1);

describe('tracking tokens', () => {
  it('round-trips an open and a click target', () => {
    expect(
      verifyToken(
        KEY,
        'transactional',
        signToken(KEY, 'transactional', { kind: 'open', recipientId: 12345 }),
      ),
    ).toEqual({
      kind: 'open',
      recipientId: 12345,
    });
    expect(
      verifyToken(
        KEY,
        'transactional',
        signToken(KEY, 'transactional', { kind: 'click', recipientId: 7, position: 40 }),
      ),
    ).toEqual({
      kind: 'click',
      recipientId: 7,
      position: 40,
    });
  });

  it('refuses a token signed under another key', () => {
    expect(
      verifyToken(
        KEY,
        'transactional',
        signToken(Buffer.alloc(32, 2), 'transactional', { kind: 'open', recipientId: 1 }),
      ),
    ).toBeNull();
  });

  it('refuses a token whose target was changed', () => {
    const token = signToken(KEY, 'transactional', { kind: 'open', recipientId: 1 });
    expect(verifyToken(KEY, 'transactional', token.replace(/^o\.1\./, 'o.2.'))).toBeNull();
  });

  it('refuses a second spelling of the same tag (its unused last bits changed)', () => {
    const token = signToken(KEY, 'transactional', { kind: 'open', recipientId: 1 });
    const last = token.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sibling = alphabet[alphabet.indexOf(last) ^ 1]!;
    expect(Buffer.from(token.slice(-22, -1) + sibling, 'base64url')).toEqual(
      Buffer.from(token.slice(-22), 'base64url'),
    );
    expect(verifyToken(KEY, 'transactional', token.slice(0, -1) + sibling)).toBeNull();
  });

  it('refuses a token of the other kind', () => {
    const open = signToken(KEY, 'transactional', { kind: 'open', recipientId: 5 });
    const mOpen = signToken(KEY, 'marketing', { kind: 'open', deliveryId: 5 });
    expect(verifyToken(KEY, 'marketing', open)).toBeNull();
    expect(verifyToken(KEY, 'transactional', mOpen)).toBeNull();
  });
});

// Tokens already out in sent mail: the URLs must stay these, and their tokens keep verifying.
describe('tokens of mail already sent', () => {
  const key = Buffer.alloc(32, 3);
  const u = 'https://mail.example';
  const token = (url: string) =>
    url
      .split('/')
      .at(-1)!
      .replace(/\.gif$/, '');

  it('makes and verifies the transactional URLs as before', () => {
    const open = 'https://mail.example/t/o/o.9ix.qm6_F1VRVHcjIv03dr3wvg.gif';
    const click = 'https://mail.example/t/c/c.7.14.QhcTnP5CGSEDdkqLwHfx8g';
    expect([
      tokenUrls.transactional.open(u, key, 12345),
      tokenUrls.transactional.click(u, key, 7, 40),
    ]).toEqual([open, click]);
    expect(verifyToken(key, 'transactional', token(open))).toEqual({ kind: 'open', recipientId: 12345 });
    expect(verifyToken(key, 'transactional', token(click))).toEqual({
      kind: 'click',
      recipientId: 7,
      position: 40,
    });
  });

  it('makes and verifies the marketing URLs as before', () => {
    const urls = [
      'https://mail.example/t/m/o/mo.2r.vpTyJj_om3UZb_6HJ8J6hQ.gif',
      'https://mail.example/t/m/c/mc.2r.2.xJ9vMC9-3faVkxS5U6lRjw',
      'https://mail.example/u/mu.2r.AocV7SN-Wd8aBlN1Csj9cw',
      'https://mail.example/p/mp.2r.izTQBta19YAhDhOIGdmFRg',
    ];
    const m = tokenUrls.marketing;
    expect([
      m.open(u, key, 99),
      m.click(u, key, 99, 2),
      m.unsubscribe(u, key, 99),
      m.preferences(u, key, 99),
    ]).toEqual(urls);
    expect(urls.map((url) => verifyToken(key, 'marketing', token(url)))).toEqual([
      { kind: 'open', deliveryId: 99 },
      { kind: 'click', deliveryId: 99, position: 2 },
      { kind: 'unsubscribe', deliveryId: 99 },
      { kind: 'preferences', deliveryId: 99 },
    ]);
  });
});
