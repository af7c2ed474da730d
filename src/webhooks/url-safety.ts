/**
 * Outbound URL safety for webhooks: only http and https, and no host that is or resolves to a private, loopback,
 * link-local, unique-local or unspecified address unless configuration allows it. Checked when an endpoint is saved
 * and again when each POST connects, on the address actually dialled, so a name re-pointed at an inside address after
 * it was saved (DNS rebinding) is refused too.
 */
import { promises as dns, type LookupAddress } from 'node:dns';
import net, { BlockList } from 'node:net';
import { AppError } from '../errors/app-error.ts';

/** Resolves a host name to its addresses (the system resolver by default; tests hand in their own). */
export type HostLookup = (hostname: string) => Promise<LookupAddress[]>;

/** The system resolver, as connections use it (`/etc/hosts`, then DNS). */
export const systemLookup: HostLookup = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

const REFUSED = new BlockList();
for (const [subnet, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  REFUSED.addSubnet(subnet, prefix, 'ipv4');
for (const [subnet, prefix] of [
  ['::', 96], // unspecified, loopback, IPv4-compatible
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): translated to an IPv4 address of the operator's choosing
  ['100::', 64], // discard
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const)
  REFUSED.addSubnet(subnet, prefix, 'ipv6');

/** The eight 16-bit groups of an IPv6 literal (a trailing dotted IPv4 part included), or undefined when it is not one. */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail, extra] = text.split('::');
  if (extra !== undefined) return undefined;
  const part = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const left = part(head);
  const right = part(tail);
  const groups =
    tail === undefined
      ? left
      : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff)
    ? groups
    : undefined;
}

const ipv4Of = (hi: number, lo: number) => [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');

/**
 * The IPv4 address an IPv6 address carries, in the forms that reach an IPv4 host: IPv4-mapped (`::ffff:0:0/96`),
 * IPv4-translated (`::ffff:0:0:0/96`), NAT64 (`64:ff9b::/96`), 6to4 (`2002::/16`) and Teredo (`2001::/32`, the client
 * address inverted). Undefined for any other address.
 */
export function embeddedIpv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  if (!g) return undefined;
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zero(0, 5) && g[5] === 0xffff) return ipv4Of(g[6]!, g[7]!);
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return ipv4Of(g[6]!, g[7]!);
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return ipv4Of(g[6]!, g[7]!);
  if (g[0] === 0x2002) return ipv4Of(g[1]!, g[2]!);
  if (g[0] === 0x2001 && g[1] === 0) return ipv4Of(g[6]! ^ 0xffff, g[7]! ^ 0xffff);
  return undefined;
}

/** True when `address` (an IP literal) is private, loopback, link-local, unique-local, unspecified or otherwise not public. */
export function isRefusedAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').split('%')[0]!;
  const family = net.isIP(bare);
  if (family === 4) return REFUSED.check(bare, 'ipv4');
  if (family === 6) {
    const inner = embeddedIpv4(bare);
    return REFUSED.check(bare, 'ipv6') || (inner !== undefined && REFUSED.check(inner, 'ipv4'));
  }
  return true;
}

/** The host of a URL without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

const MAX_URL = 2048;

/** Parses a target URL and checks its scheme and form; throws webhook.invalid_url. */
export function parseTargetUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new AppError('webhook.invalid_url', `target_url ${JSON.stringify(raw)} is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new AppError(
      'webhook.invalid_url',
      `target_url must use http or https, not ${url.protocol.replace(/:$/, '')}`,
    );
  if (!url.hostname) throw new AppError('webhook.invalid_url', 'target_url has no host');
  if (url.href.length > MAX_URL)
    throw new AppError('webhook.invalid_url', `target_url is longer than ${MAX_URL} characters`);
  url.hash = '';
  return url;
}

/**
 * Checks a target URL for saving: its form, and unless private targets are allowed, that its host is not and does not
 * resolve to a refused address. Returns the normalised URL text.
 */
export async function checkTargetUrl(
  raw: string,
  opts: { allowPrivate: boolean; lookup?: HostLookup },
): Promise<string> {
  const url = parseTargetUrl(raw);
  if (opts.allowPrivate) return url.href;
  const host = hostOf(url);
  let addresses: string[];
  if (net.isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await (opts.lookup ?? systemLookup)(host)).map((a) => a.address);
    } catch {
      throw new AppError('webhook.invalid_url', `the host of target_url (${host}) does not resolve`);
    }
    if (addresses.length === 0)
      throw new AppError('webhook.invalid_url', `the host of target_url (${host}) does not resolve`);
  }
  const refused = addresses.find(isRefusedAddress);
  if (refused !== undefined) {
    const where = refused === host ? `is ${host}` : `host ${host} resolves to ${refused}`;
    throw new AppError(
      'webhook.target_refused',
      `target_url ${where}, a private, loopback, link-local, unique-local or unspecified address; such targets are refused unless SEALPOST_WEBHOOK_ALLOW_PRIVATE_TARGETS is on`,
    );
  }
  return url.href;
}

/** The error a connection gets when its target address is refused. */
export class TargetRefusedError extends Error {
  readonly code = 'ERR_WEBHOOK_TARGET_REFUSED';
  constructor(host: string, address: string) {
    super(`refused to connect to ${host} at ${address}: not a public address`);
    this.name = 'TargetRefusedError';
  }
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for http.request that resolves through `lookup` and refuses any name with a refused address among its
 * addresses (unless private targets are allowed), so the check applies to the address the socket dials.
 */
export function guardedLookup(lookup: HostLookup, allowPrivate: boolean) {
  return (
    hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: LookupCallback,
  ): void => {
    lookup(hostname).then(
      (found) => {
        const wanted =
          options.family === 4 || options.family === 6
            ? found.filter((a) => a.family === options.family)
            : found;
        if (wanted.length === 0) {
          const err: NodeJS.ErrnoException = Object.assign(new Error(`no address for ${hostname}`), {
            code: 'ENOTFOUND',
          });
          return callback(err, []);
        }
        const refused = allowPrivate ? undefined : wanted.find((a) => isRefusedAddress(a.address));
        if (refused) return callback(new TargetRefusedError(hostname, refused.address), []);
        if (options.all) return callback(null, wanted);
        callback(null, wanted[0]!.address, wanted[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, []),
    );
  };
}
