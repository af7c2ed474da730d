/**
 * The mx transport: direct delivery to the recipient domain's mail exchangers. Hosts are tried by MX priority; a domain
 * without MX records is its own mail host (RFC 5321 section 5.1); a null MX (RFC 7505) or a domain that does not exist
 * fails permanently. A host that cannot be reached hands over to the next; the first host that answers decides.
 * At most `hostConcurrency` connections are open to one mail host at a time; deliveries beyond it wait for one to end.
 * Mail goes over pooled sessions per host address (session-pool.ts), so a busy destination pays for the TLS handshake
 * once per session: mail that requires TLS only over sessions that negotiated it, mail that may go in clear over any,
 * and each outcome says whether TLS was used.
 * DNS goes through an injectable resolver (node's by default) so that every lookup can be replaced.
 */
import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import type { Transport } from './transport.ts';
import type { SendOutcome, SmtpSettings, SmtpTarget } from './smtp-client.ts';
import { sessionPools } from './session-pool.ts';
import { keyedLimit } from './host-limit.ts';

/** The DNS lookups the mx transport makes; node's `dns.promises` fits. */
export interface MxResolver {
  resolveMx(domain: string): Promise<{ exchange: string; priority: number }[]>;
  resolve4(host: string): Promise<string[]>;
  resolve6?(host: string): Promise<string[]>;
}

/** Most addresses one attempt tries before giving up until the next retry. */
const MAX_ADDRESSES = 5;

/** The mx transport connecting to `port` on each host, at most `hostConcurrency` connections at once per host. */
export function createMxTransport(
  settings: SmtpSettings,
  port: number,
  resolver: MxResolver = dns,
  hostConcurrency = 5,
): Transport {
  const perHost = keyedLimit(hostConcurrency);
  const pools = sessionPools(settings, hostConcurrency);
  return {
    name: 'mx',
    async send(req) {
      const domain = req.to.slice(req.to.lastIndexOf('@') + 1).toLowerCase();
      const hosts = await mailHosts(resolver, domain);
      if (!Array.isArray(hosts)) return hosts;
      let last: SendOutcome = {
        result: 'temporary',
        response: `no address found for the mail hosts of ${domain}`,
        tls: null,
      };
      let tried = 0;
      for (const host of hosts) {
        for (const address of await addressesOf(resolver, host)) {
          if (tried++ >= MAX_ADDRESSES) return last;
          const target: SmtpTarget = {
            host: address,
            port,
            secure: false,
            servername: isIP(host) ? undefined : host,
          };
          const envelope = { from: req.from, to: req.to };
          const outcome = await perHost(host.toLowerCase(), () =>
            pools.send(target, envelope, req.raw, req.requireTls),
          );
          if (!outcome.unreachable) return outcome;
          last = { ...outcome, response: `${host} [${address}]: ${outcome.response}` };
        }
      }
      return last;
    },
    close: async () => pools.close(),
  };
}

/** The domain's mail hosts in the order to try them, or the outcome that ends the attempt. */
async function mailHosts(resolver: MxResolver, domain: string): Promise<string[] | SendOutcome> {
  let records: { exchange: string; priority: number }[];
  try {
    records = await resolver.resolveMx(domain);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ENODATA') return [domain];
    if (code === 'ENOTFOUND')
      return { result: 'permanent', response: `550 ${domain} does not exist (DNS NXDOMAIN)`, tls: null };
    return {
      result: 'temporary',
      response: `looking up MX of ${domain} failed: ${code ?? String(err)}`,
      tls: null,
    };
  }
  if (records.length === 0) return [domain];
  if (records.some((r) => r.exchange === '' || r.exchange === '.'))
    return { result: 'permanent', response: `556 ${domain} accepts no mail (null MX)`, tls: null };
  return [...records].sort((a, b) => a.priority - b.priority).map((r) => r.exchange.replace(/\.$/, ''));
}

/** The IPv4 then IPv6 addresses of a host; empty when it has none or the lookup fails. */
async function addressesOf(resolver: MxResolver, host: string): Promise<string[]> {
  if (isIP(host)) return [host];
  const lookup = async (fn?: (h: string) => Promise<string[]>) =>
    fn ? fn.call(resolver, host).catch(() => [] as string[]) : [];
  return [...(await lookup(resolver.resolve4)), ...(await lookup(resolver.resolve6))];
}
