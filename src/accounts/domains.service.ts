/** Sending domains: adding one (with its verification token and DKIM key pair), the DNS records to publish, verification through DNS. */
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { AppError } from '../errors/app-error.ts';
import type { Queryable } from '../db/types.ts';
import type { Sealer } from '../crypto/sealer.ts';
import {
  findDomain,
  findVerifiedDomain,
  insertDomain,
  listDomains,
  listVerifiedDomains,
  markDomainVerified,
  type DomainRow,
} from './domains.repository.ts';
import type { Database } from '../db/connect.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { record as audit, type ChangeBy } from '../audit/audit.service.ts';
import {
  checkDomainRecords,
  dkimKeysOf,
  dnsRecords,
  REQUIRED_PURPOSES,
  type DnsCheck,
  type DnsRecord,
  type SpfTarget,
  type TxtResolver,
} from './dns-checks.ts';

export { dnsRecords, type DnsRecord, type TxtResolver } from './dns-checks.ts';

/** A domain as the command line and API show it (no private key). */
export interface Domain {
  id: string;
  domain: string;
  verified: boolean;
  verified_at: string | null;
  dkim_selector: string;
  /** The algorithms the domain's mail is signed with: `rsa`, `ed25519` or `both`. */
  dkim_signing: DkimSigning;
  /** Each DKIM key: its algorithm and selector (the key itself is in its DNS record). */
  dkim_keys: { algorithm: string; selector: string }[];
  dns_records: DnsRecord[];
  created_at: string;
  /** After `verify`: each of the four records as found in DNS. */
  dns_checks?: DnsCheck[];
}

/** Which DKIM keys a domain signs with. RSA is the default; RFC 8463 recommends Ed25519 beside RSA (`both`). */
export type DkimSigning = 'rsa' | 'ed25519' | 'both';

/** The accepted values of a DKIM choice. */
export const DKIM_SIGNING: readonly DkimSigning[] = ['rsa', 'ed25519', 'both'];

const DOMAIN = /^(?=.{1,253}$)(?!-)([a-z0-9-]{1,63}(?<!-)\.)+[a-z]{2,63}$/;

/** Lower-cases and checks a domain name. */
export function normalizeDomain(input: string): string {
  const name = input.trim().toLowerCase().replace(/\.$/, '');
  if (!DOMAIN.test(name)) throw new AppError('domain.invalid', `"${input}" is not a valid domain name`);
  return name;
}

function toDomain(row: DomainRow, sendingHost?: SpfTarget): Domain {
  return {
    id: row.id,
    domain: row.name,
    verified: row.verified === 1,
    verified_at: row.verified_at === null ? null : new Date(row.verified_at).toISOString(),
    dkim_selector: row.dkim_selector,
    dkim_signing: row.dkim2_selector ? 'both' : row.dkim_algorithm === 'ed25519' ? 'ed25519' : 'rsa',
    dkim_keys: dkimKeysOf(row).map((k) => ({ algorithm: k.algorithm, selector: k.selector })),
    dns_records: dnsRecords(row, sendingHost),
    created_at: new Date(row.created_at).toISOString(),
  };
}

/** What a DKIM private key's sealing is bound to: its domain, and which of the domain's keys it is. */
export const dkimSealContext = (domainId: string, second = false): string =>
  `${second ? 'dkim2' : 'dkim'}:${domainId}`;

/** A DKIM key pair: the public key as its DNS record publishes it (`p=`), the private key as PEM. */
export interface DkimKeyPair {
  publicKey: string;
  privateKeyPem: string;
}

/** A new key pair. */
export function dkimKeyPair(algorithm: 'rsa' | 'ed25519'): DkimKeyPair {
  const { publicKey, privateKey } =
    algorithm === 'rsa'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : generateKeyPairSync('ed25519');
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return {
    // RSA records carry the whole SubjectPublicKeyInfo; Ed25519 records the bare 32-byte key (RFC 8463 section 4.2).
    publicKey: (algorithm === 'rsa' ? der : der.subarray(der.length - 32)).toString('base64'),
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

/** The sealed key columns of a new domain signing with `signing`; an Ed25519 selector ends in `e`. */
function dkimColumns(sealer: Sealer, id: string, month: string, signing: DkimSigning, rsa?: DkimKeyPair) {
  const first = signing === 'ed25519' ? dkimKeyPair('ed25519') : (rsa ?? dkimKeyPair('rsa'));
  const second = signing === 'both' ? dkimKeyPair('ed25519') : undefined;
  return {
    dkim_algorithm: signing === 'ed25519' ? 'ed25519' : 'rsa',
    dkim_selector: signing === 'ed25519' ? `sp${month}e` : `sp${month}`,
    dkim_public_key: first.publicKey,
    dkim_private_key: sealer.seal(first.privateKeyPem, dkimSealContext(id)),
    dkim2_selector: second ? `sp${month}e` : null,
    dkim2_public_key: second?.publicKey ?? null,
    dkim2_private_key: second ? sealer.seal(second.privateKeyPem, dkimSealContext(id, true)) : null,
  };
}

/**
 * Adds a domain to an account, unverified unless `verified` (development and tests: no DNS check); recorded in the
 * audit trail as added `by`.
 */
export async function addDomain(
  db: Queryable,
  sealer: Sealer,
  customerId: number,
  input: string,
  by: ChangeBy,
  opts: {
    verified?: boolean;
    now?: number;
    sendingHost?: SpfTarget;
    /** The DKIM keys to sign with; RSA when not given. */
    dkim?: DkimSigning;
    /** An RSA key pair made earlier instead of a new one (making one takes about 0.2 s of CPU; tests share one). */
    rsaKeyPair?: DkimKeyPair;
  } = {},
): Promise<Domain> {
  const name = normalizeDomain(input);
  const signing = opts.dkim ?? 'rsa';
  if (!DKIM_SIGNING.includes(signing))
    throw new AppError('request.invalid', `DKIM signing must be one of ${DKIM_SIGNING.join(', ')}`);
  const now = opts.now ?? Date.now();
  const id = randomUUID();
  const month = new Date(now).toISOString().slice(0, 7).replace('-', '');
  try {
    const row = await insertDomain(db, {
      id,
      customer_id: customerId,
      name,
      verified: opts.verified ? 1 : 0,
      verified_at: opts.verified ? now : null,
      verified_without_dns: opts.verified ? 1 : 0,
      verification_token: randomBytes(18).toString('base64url'),
      ...dkimColumns(sealer, id, month, signing, opts.rsaKeyPair),
      created_at: now,
    });
    await audit(db, {
      accountId: customerId,
      actor: by.actor,
      action: 'domain.add',
      target: `domain:${id}`,
      ip: by.ip,
      detail: { name, verified: opts.verified === true, dkim: signing },
    });
    return toDomain(row, opts.sendingHost);
  } catch (err) {
    if (isUniqueViolation(err))
      throw new AppError('domain.exists', `domain ${name} is already added to this account`);
    throw err;
  }
}

/** Reads an account's domain by name, or throws domain.not_found. */
export async function getDomainRow(db: Queryable, customerId: number, input: string): Promise<DomainRow> {
  const name = normalizeDomain(input);
  const row = await findDomain(db, customerId, name);
  if (!row) throw new AppError('domain.not_found', `domain ${name} is not added to this account`);
  return row;
}

/** Lists an account's domains. */
export async function accountDomains(
  db: Queryable,
  customerId: number,
  sendingHost?: SpfTarget,
): Promise<Domain[]> {
  return (await listDomains(db, customerId)).map((row) => toDomain(row, sendingHost));
}

/**
 * Checks the domain's four records through DNS and marks it verified when ownership and DKIM are published; otherwise
 * throws naming every record missing. The answer lists each check, so a missing SPF or DMARC record is reported too.
 * The change from unverified to verified is recorded in the audit trail as made `by`.
 */
export async function verifyDomain(
  db: Queryable,
  resolver: TxtResolver,
  customerId: number,
  input: string,
  by: ChangeBy,
  opts: { now?: number; sendingHost?: SpfTarget } = {},
): Promise<Domain> {
  const { now = Date.now(), sendingHost } = opts;
  const row = await getDomainRow(db, customerId, input);
  const checks = await checkDomainRecords(resolver, row, sendingHost);
  const missing = checks.filter((c) => !c.ok);
  if (missing.some((c) => REQUIRED_PURPOSES.includes(c.purpose)))
    throw new AppError(
      'domain.verification_failed',
      `DNS records not found for ${row.name}: ${missing.map(describe).join(', ')}`,
      {
        details: missing.map((c) => ({ message: `${c.purpose}: ${c.detail} at TXT ${c.name}` })),
      },
    );
  await markDomainVerified(db, row.id, now);
  if (row.verified !== 1)
    await audit(db, {
      accountId: customerId,
      actor: by.actor,
      action: 'domain.verify',
      target: `domain:${row.id}`,
      ip: by.ip,
      detail: { name: row.name },
    });
  return { ...toDomain({ ...row, verified: 1, verified_at: now }, sendingHost), dns_checks: checks };
}

function describe(c: DnsCheck): string {
  return `TXT ${c.name} (${c.purpose}: ${c.detail})`;
}

/**
 * How long a process keeps an account's verified domains for sends. A name not among them is read again before a send
 * is refused, so a domain verified a moment ago (here or in another process) is found at once.
 */
const VERIFIED_CACHE_MS = 1_000;

/** Per database (tests run several in one process), per account: verified domain names to ids, and until when. */
const verifiedCache = new WeakMap<Database, Map<number, { ids: Map<string, string>; until: number }>>();

/** The ids of those of `names` that are verified domains of the account, by name. Every send asks, so answers are kept briefly. */
export async function verifiedDomainIds(
  database: Database,
  customerId: number,
  names: Iterable<string>,
  now = Date.now(),
): Promise<Map<string, string>> {
  let cache = verifiedCache.get(database);
  if (!cache) verifiedCache.set(database, (cache = new Map()));
  const hit = cache.get(customerId);
  const wanted = [...names];
  if (hit && hit.until > now && wanted.every((n) => hit.ids.has(n))) return hit.ids;
  const ids = new Map((await listVerifiedDomains(database.reader, customerId)).map((d) => [d.name, d.id]));
  cache.set(customerId, { ids, until: now + VERIFIED_CACHE_MS });
  return ids;
}

/** Whether `domain` is a verified domain of the account: the one check of a From address, for every kind of mail. */
export async function isVerifiedDomain(
  database: Database,
  customerId: number,
  domain: string,
  now = Date.now(),
): Promise<boolean> {
  return (await verifiedDomainIds(database, customerId, [domain], now)).has(domain);
}

/** The account's verified domain names, in name order (read fresh: system mail picks its sender from them). */
export async function verifiedDomainNames(db: Queryable, customerId: number): Promise<string[]> {
  return (await listVerifiedDomains(db, customerId)).map((d) => d.name).sort();
}

/** A verified domain of the account with its sealed DKIM key, or undefined when it is not (or no longer) verified. */
export async function sendingDomain(db: Queryable, customerId: number, name: string) {
  return findVerifiedDomain(db, customerId, name);
}
