import { describe, expect, it } from 'vitest';
import { checkTargetUrl, guardedLookup, isRefusedAddress, TargetRefusedError } from './url-safety.ts';

describe('isRefusedAddress', () => {
  it.each([
    '0.0.0.0',
    '10.1.2.3',
    '100.64.0.1',
    '127.0.0.1',
    '127.255.255.254',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.10.10',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    'fe80::1',
    'fe80::1%eth0',
    'fc00::1',
    'fd00:ec2::254',
    'ff02::1',
    '::ffff:10.0.0.1',
    '::ffff:7f00:1',
    '64:ff9b::a00:1',
    '64:ff9b::127.0.0.1',
    '64:ff9b:1::a00:1',
    '64:ff9b:1:7f00:1::',
    '64:ff9b:1:a9fe:a9:fe00::',
    '64:ff9b:1:ffff:ffff:ffff:ffff:ffff',
    '::ffff:0:10.0.0.1',
    '::ffff:0:a9fe:a9fe',
    '::ffff:0:127.0.0.1',
    '2002:7f00:1::',
    '2002:a9fe:a9fe::1',
    '2002:c0a8:0101:1::1',
    '2001:0:4136:e378:8000:63bf:80ff:fffe',
  ])('refuses %s', (address) => {
    expect(isRefusedAddress(address)).toBe(true);
  });

  it.each([
    '93.184.215.14',
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
    '::ffff:0:8.8.8.8',
  ])('allows %s', (address) => {
    expect(isRefusedAddress(address)).toBe(false);
  });
});

describe('checkTargetUrl', () => {
  const lookup = (addresses: string[]) => async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

  it('refuses a name when any of its addresses is private', async () => {
    await expect(
      checkTargetUrl('https://hooks.example/in', {
        allowPrivate: false,
        lookup: lookup(['93.184.215.14', '10.0.0.1']),
      }),
    ).rejects.toThrow(/host hooks\.example resolves to 10\.0\.0\.1/);
  });

  it('accepts a name whose addresses are all public, and normalises the URL', async () => {
    await expect(
      checkTargetUrl(' HTTPS://Hooks.Example/in#frag ', {
        allowPrivate: false,
        lookup: lookup(['93.184.215.14']),
      }),
    ).resolves.toBe('https://hooks.example/in');
  });

  it('reports a name that does not resolve', async () => {
    const failing = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    await expect(
      checkTargetUrl('https://nowhere.invalid/', { allowPrivate: false, lookup: failing }),
    ).rejects.toThrow(/does not resolve/);
  });

  it('allows private addresses when configured to, without resolving', async () => {
    await expect(
      checkTargetUrl('http://localhost:3000/in', { allowPrivate: true, lookup: lookup([]) }),
    ).resolves.toBe('http://localhost:3000/in');
  });
});

describe('guardedLookup at send time', () => {
  it.each(['2002:a9fe:a9fe::1', '::ffff:0:10.0.0.1'])(
    'refuses a name that now resolves to %s, a private address in another form',
    async (address) => {
      const dial = guardedLookup(async () => [{ address, family: 6 }], false);
      const err = await new Promise((resolve) => dial('hooks.example', { all: true }, (e) => resolve(e)));
      expect(err).toBeInstanceOf(TargetRefusedError);
    },
  );
});
