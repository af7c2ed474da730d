/**
 * The four DNS records a sending domain should publish (ownership, DKIM, SPF, DMARC): the advice for each, and checking
 * each through a resolver. Ownership and DKIM are required to verify a domain; SPF and DMARC decide whether receivers
 * trust its mail, so they are advised and reported.
 */
import type { DomainRow } from './domains.repository.ts';
import { relayInclude } from './spf-includes.ts';

/** The part of a DNS resolver the checks need; node's `dns.promises` fits, tests pass their own. */
export interface TxtResolver {
  resolveTxt(name: string): Promise<string[][]>;
  /** Optional: lets the SPF check accept an `ip4:` mechanism naming the sending host's address. */
  resolve4?(name: string): Promise<string[]>;
}

/** What a DNS record is for. */
export type RecordPurpose = 'verification' | 'dkim' | 'spf' | 'dmarc';

/** A DNS record the domain owner publishes. */
export interface DnsRecord {
  type: 'TXT';
  name: string;
  value: string;
  purpose: RecordPurpose;
  /** Only when the advice is incomplete (SPF with no known sending host): what to fill in, and why. */
  note?: string;
}

/**
 * What the SPF record must name: the relay's documented `include:`, or `a:` of a configured public host name. A bare
 * host name string means `a:`. Undefined: neither is known, and the advice says so.
 */
export type SpfTarget = { mechanism: 'a' | 'include'; host: string } | string | undefined;

/** The placeholder the SPF advice carries when no sending host is known. */
export const UNKNOWN_SENDING_HOST = 'YOUR-SENDING-HOST';

const UNKNOWN_SPF_NOTE = `No public sending host is configured (SEALPOST_HELO_NAME or SEALPOST_PUBLIC_URL), nor a relay whose SPF include is known: replace ${UNKNOWN_SENDING_HOST} with the public name of the host your mail leaves from, or use your relay's documented include.`;

const targetOf = (t: SpfTarget) => (typeof t === 'string' ? { mechanism: 'a' as const, host: t } : t);

/** One record checked through DNS. */
export interface DnsCheck {
  purpose: RecordPurpose;
  name: string;
  ok: boolean;
  detail: string;
}

/** The purposes a domain cannot be verified without. */
export const REQUIRED_PURPOSES: readonly RecordPurpose[] = ['verification', 'dkim'];

type RecordRow = Pick<
  DomainRow,
  | 'name'
  | 'verification_token'
  | 'dkim_selector'
  | 'dkim_public_key'
  | 'dkim_algorithm'
  | 'dkim2_selector'
  | 'dkim2_public_key'
>;

/** A domain's DKIM keys: algorithm, selector and the public key as published (`p=`). The second is always Ed25519. */
export function dkimKeysOf(row: RecordRow): { algorithm: string; selector: string; publicKey: string }[] {
  const keys = [
    { algorithm: row.dkim_algorithm, selector: row.dkim_selector, publicKey: row.dkim_public_key },
  ];
  if (row.dkim2_selector && row.dkim2_public_key)
    keys.push({ algorithm: 'ed25519', selector: row.dkim2_selector, publicKey: row.dkim2_public_key });
  return keys;
}

/** The records to publish: ownership and DKIM, one per key (required), SPF naming the sending host and DMARC (advised). */
export function dnsRecords(row: RecordRow, sendingHost?: SpfTarget): DnsRecord[] {
  const spf = targetOf(sendingHost);
  return [
    {
      type: 'TXT',
      name: `_sealpost.${row.name}`,
      value: `sealpost-verification=${row.verification_token}`,
      purpose: 'verification',
    },
    ...dkimKeysOf(row).map((key): DnsRecord => ({
      type: 'TXT',
      name: `${key.selector}._domainkey.${row.name}`,
      value: `v=DKIM1; k=${key.algorithm}; p=${key.publicKey}`,
      purpose: 'dkim',
    })),
    spf
      ? { type: 'TXT', name: row.name, value: `v=spf1 ${spf.mechanism}:${spf.host} ~all`, purpose: 'spf' }
      : {
          type: 'TXT',
          name: row.name,
          value: `v=spf1 a:${UNKNOWN_SENDING_HOST} ~all`,
          purpose: 'spf',
          note: UNKNOWN_SPF_NOTE,
        },
    {
      type: 'TXT',
      name: `_dmarc.${row.name}`,
      value: `v=DMARC1; p=none; rua=mailto:dmarc-reports@${row.name}`,
      purpose: 'dmarc',
    },
  ];
}

async function txtValues(resolver: TxtResolver, name: string): Promise<string[]> {
  try {
    return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
  } catch {
    return [];
  }
}

/** Checks all four records of a domain. */
export async function checkDomainRecords(
  resolver: TxtResolver,
  row: RecordRow,
  sendingHost?: SpfTarget,
): Promise<DnsCheck[]> {
  const out: DnsCheck[] = [];
  for (const record of dnsRecords(row, sendingHost)) {
    const values = (await txtValues(resolver, record.name)).map((v) => v.replace(/\s+/g, ' ').trim());
    out.push({
      purpose: record.purpose,
      name: record.name,
      ...(await judge(record, values, sendingHost, resolver)),
    });
  }
  return out;
}

async function judge(
  record: DnsRecord,
  values: string[],
  sendingHost: SpfTarget,
  resolver: TxtResolver,
): Promise<{ ok: boolean; detail: string }> {
  switch (record.purpose) {
    case 'verification':
      return values.includes(record.value)
        ? { ok: true, detail: 'ownership token found' }
        : { ok: false, detail: 'ownership token missing' };
    case 'dkim': {
      const [, algorithm, key] = /k=(\S+); p=(\S+)$/.exec(record.value)!;
      const name = algorithm === 'ed25519' ? 'Ed25519' : 'RSA';
      return values.some((v) => v.includes(`p=${key}`))
        ? { ok: true, detail: `DKIM public key (${name}) found` }
        : { ok: false, detail: `DKIM public key (${name}) missing` };
    }
    case 'spf': {
      const spf = values.filter((v) => /^v=spf1(\s|$)/i.test(v));
      if (spf.length === 0) return { ok: false, detail: 'no SPF record (v=spf1)' };
      if (spf.length > 1)
        return { ok: false, detail: 'more than one SPF record: receivers treat that as an error' };
      const target = targetOf(sendingHost);
      if (!target)
        return { ok: true, detail: 'SPF record found; no sending host is configured to check it against' };
      return (await spfNamesHost(spf[0]!, target.host, resolver))
        ? { ok: true, detail: `SPF includes ${target.host}` }
        : { ok: false, detail: `SPF record does not include the sending host ${target.host}` };
    }
    case 'dmarc':
      return values.some((v) => /^v=DMARC1\s*;/i.test(v))
        ? { ok: true, detail: 'DMARC record found' }
        : { ok: false, detail: 'no DMARC record (v=DMARC1)' };
  }
}

/** Whether an SPF record's mechanisms name the host (a:, mx:, include:, exists:) or one of its IPv4 addresses (ip4:). */
async function spfNamesHost(spf: string, host: string, resolver: TxtResolver): Promise<boolean> {
  const terms = spf.toLowerCase().split(' ').slice(1);
  const h = host.toLowerCase();
  if (
    terms.some(
      (t) => /^[+?~]?(a|mx|include|exists):/.test(t) && t.split(':').slice(1).join(':').split('/')[0] === h,
    )
  )
    return true;
  const ip4 = terms.filter((t) => /^[+?~]?ip4:/.test(t)).map((t) => t.split(':')[1]!.split('/')[0]);
  if (ip4.length === 0 || !resolver.resolve4) return false;
  const addresses = await resolver.resolve4(host).catch(() => [] as string[]);
  return addresses.some((a) => ip4.includes(a));
}

/**
 * What SPF must name for mail to pass: with the relay transport, the relay's documented include (or the relay's own
 * host when its include is not known); otherwise the configured HELO name, else the public URL's host when it is a
 * public name. Undefined when none is configured: the machine's own host name is rarely what receivers see.
 */
export function sendingHostOf(config: {
  transport: string;
  relayUrl?: string;
  heloName?: string;
  publicUrl?: string;
}): SpfTarget {
  const relay = config.transport === 'relay' ? hostOfUrl(config.relayUrl) : undefined;
  if (relay) {
    const include = relayInclude(relay);
    return include ? { mechanism: 'include', host: include } : { mechanism: 'a', host: relay };
  }
  if (config.heloName) return { mechanism: 'a', host: config.heloName };
  const pub = hostOfUrl(config.publicUrl);
  if (pub && pub.includes('.') && !/^[\d.]+$|^\[|localhost$/i.test(pub)) return { mechanism: 'a', host: pub };
  return undefined;
}

function hostOfUrl(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).hostname || undefined;
  } catch {
    // An unparsable URL is reported by the start.
    return undefined;
  }
}

/** One line per check, for people. */
export function checksText(checks: DnsCheck[]): string {
  return checks
    .map((c) => `  ${c.ok ? 'ok     ' : 'MISSING'}  ${c.purpose.padEnd(12)} TXT ${c.name}: ${c.detail}`)
    .join('\n');
}
