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
  ['100::', 64], // discard
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const)
  REFUSED.addSubnet(subnet, prefix, 'ipv6');

/** The IPv4 address inside a NAT64 address (64:ff9b::/96), or undefined. */
function nat64Inner(address: string): string | undefined {
  const m = /^64:ff9b::(?:ffff:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (m) {
    const hi = parseInt(m[1]!, 16);
    const lo = parseInt(m[2]!, 16);
    return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
  }
  const dotted = /^64:ff9b::(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return dotted?.[1];
}

/** True when `address` (an IP literal) is private, loopback, link-local, unique-local, unspecified or otherwise not public. */
export function isRefusedAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').split('%')[0]!;
  const family = net.isIP(bare);
  if (family === 4) return REFUSED.check(bare, 'ipv4');
  if (family === 6) {
    const inner = nat64Inner(bare);
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
    throw new AppError('webhook.invalid_url', `target_url must use http or https, not ${url.protocol.replace(/:$/, '')}`);
  if (!url.hostname) throw new AppError('webhook.invalid_url', 'target_url has no host');
  if (url.href.length > MAX_URL) throw new AppError('webhook.invalid_url', `target_url is longer than ${MAX_URL} characters`);
  url.hash = '';
  return url;
}

/**
 * Checks a target URL for saving: its form, and unless private targets are allowed, that its host is not and does not
 * resolve to a refused address. Returns the normalised URL text.
 */
export async function checkTargetUrl(raw: string, opts: { allowPrivate: boolean; lookup?: HostLookup }): Promise<string> {
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
    if (addresses.length === 0) throw new AppError('webhook.invalid_url', `the host of target_url (${host}) does not resolve`);
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

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http.request that resolves through `lookup` and refuses any name with a refused address among its
 * addresses (unless private targets are allowed), so the check applies to the address the socket dials.
 */
export function guardedLookup(lookup: HostLookup, allowPrivate: boolean) {
  return (hostname: string, options: { all?: boolean; family?: number | string }, callback: LookupCallback): void => {
    lookup(hostname).then(
      (found) => {
        const wanted = options.family === 4 || options.family === 6 ? found.filter((a) => a.family === options.family) : found;
        if (wanted.length === 0) {
          const err: NodeJS.ErrnoException = Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' });
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
