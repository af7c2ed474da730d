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
  dnsRecords,
  REQUIRED_PURPOSES,
  type DnsCheck,
  type DnsRecord,
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
  dns_records: DnsRecord[];
  created_at: string;
  /** After `verify`: each of the four records as found in DNS. */
  dns_checks?: DnsCheck[];
}

const DOMAIN = /^(?=.{1,253}$)(?!-)([a-z0-9-]{1,63}(?<!-)\.)+[a-z]{2,63}$/;

/** Lower-cases and checks a domain name. */
export function normalizeDomain(input: string): string {
  const name = input.trim().toLowerCase().replace(/\.$/, '');
  if (!DOMAIN.test(name)) throw new AppError('domain.invalid', `"${input}" is not a valid domain name`);
  return name;
}

function toDomain(row: DomainRow, sendingHost?: string): Domain {
  return {
    id: row.id,
    domain: row.name,
    verified: row.verified === 1,
    verified_at: row.verified_at === null ? null : new Date(row.verified_at).toISOString(),
    dkim_selector: row.dkim_selector,
    dns_records: dnsRecords(row, sendingHost),
    created_at: new Date(row.created_at).toISOString(),
  };
}

function dkimKeyPair(): { publicKey: string; privateKeyPem: string } {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
  });
  return {
    publicKey: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
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
    sendingHost?: string;
  } = {},
): Promise<Domain> {
  const name = normalizeDomain(input);
  const now = opts.now ?? Date.now();
  const id = randomUUID();
  const keys = dkimKeyPair();
  const month = new Date(now).toISOString().slice(0, 7).replace('-', '');
  try {
    const row = await insertDomain(db, {
      id,
      customer_id: customerId,
      name,
      verified: opts.verified ? 1 : 0,
      verified_at: opts.verified ? now : null,
      verification_token: randomBytes(18).toString('base64url'),
      dkim_selector: `sp${month}`,
      dkim_public_key: keys.publicKey,
      dkim_private_key: sealer.seal(keys.privateKeyPem, `dkim:${id}`),
      created_at: now,
    });
    await audit(db, {
      accountId: customerId,
      actor: by.actor,
      action: 'domain.add',
      target: `domain:${id}`,
      ip: by.ip,
      detail: { name, verified: opts.verified === true },
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
  sendingHost?: string,
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
  opts: { now?: number; sendingHost?: string } = {},
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
