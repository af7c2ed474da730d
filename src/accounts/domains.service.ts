/** Sending domains: adding one (with its verification token and DKIM key pair), the DNS records to publish, verification through DNS. */
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { AppError } from '../errors/app-error.ts';
import type { Queryable } from '../db/types.ts';
import type { Sealer } from '../crypto/sealer.ts';
import { findDomain, insertDomain, listDomains, listVerifiedDomains, markDomainVerified, type DomainRow } from './domains.repository.ts';
import type { Database } from '../db/connect.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { record as audit, type AuditActor } from '../audit/audit.service.ts';

/** The part of a DNS resolver that verification needs; node's `dns.promises` fits, tests pass their own. */
export interface TxtResolver {
  resolveTxt(name: string): Promise<string[][]>;
}

/** A DNS record the domain owner publishes. */
export interface DnsRecord {
  type: 'TXT';
  name: string;
  value: string;
  purpose: 'verification' | 'dkim' | 'spf' | 'dmarc';
}

/** A domain as the command line and API show it (no private key). */
export interface Domain {
  id: string;
  domain: string;
  verified: boolean;
  verified_at: string | null;
  dkim_selector: string;
  dns_records: DnsRecord[];
  created_at: string;
}

const DOMAIN = /^(?=.{1,253}$)(?!-)([a-z0-9-]{1,63}(?<!-)\.)+[a-z]{2,63}$/;

/** Lower-cases and checks a domain name. */
export function normalizeDomain(input: string): string {
  const name = input.trim().toLowerCase().replace(/\.$/, '');
  if (!DOMAIN.test(name)) throw new AppError('domain.invalid', `"${input}" is not a valid domain name`);
  return name;
}

/** The DNS records that prove ownership and publish the DKIM key. */
export function dnsRecords(row: Pick<DomainRow, 'name' | 'verification_token' | 'dkim_selector' | 'dkim_public_key'>): DnsRecord[] {
  return [
    {
      type: 'TXT',
      name: `_sealpost.${row.name}`,
      value: `sealpost-verification=${row.verification_token}`,
      purpose: 'verification',
    },
    {
      type: 'TXT',
      name: `${row.dkim_selector}._domainkey.${row.name}`,
      value: `v=DKIM1; k=rsa; p=${row.dkim_public_key}`,
      purpose: 'dkim',
    },
  ];
}

function toDomain(row: DomainRow): Domain {
  return {
    id: row.id,
    domain: row.name,
    verified: row.verified === 1,
    verified_at: row.verified_at === null ? null : new Date(row.verified_at).toISOString(),
    dkim_selector: row.dkim_selector,
    dns_records: dnsRecords(row),
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

/** Adds a domain to an account, unverified unless `verified` (development and tests: no DNS check). */
export async function addDomain(
  db: Queryable,
  sealer: Sealer,
  customerId: number,
  input: string,
  opts: { verified?: boolean; now?: number; by?: { actor: AuditActor; ip?: string } } = {},
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
    if (opts.by)
      await audit(db, {
        accountId: customerId,
        actor: opts.by.actor,
        action: 'domain.add',
        target: `domain:${id}`,
        ip: opts.by.ip,
        detail: { name },
      });
    return toDomain(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError('domain.exists', `domain ${name} is already added to this account`);
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
export async function accountDomains(db: Queryable, customerId: number): Promise<Domain[]> {
  return (await listDomains(db, customerId)).map(toDomain);
}

async function txtValues(resolver: TxtResolver, name: string): Promise<string[]> {
  try {
    return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
  } catch {
    return [];
  }
}

/** SPF and DMARC records Sealpost advises publishing: not needed for verification, but receivers trust mail more with them. */
export function adviceRecords(name: string, sendingHost: string): DnsRecord[] {
  return [
    { type: 'TXT', name, value: `v=spf1 a:${sendingHost} mx ~all`, purpose: 'spf' },
    { type: 'TXT', name: `_dmarc.${name}`, value: `v=DMARC1; p=none; rua=mailto:dmarc@${name}`, purpose: 'dmarc' },
  ];
}

/** What DNS answered for one record. `required` records decide verification; advice records only inform. */
export interface RecordCheck {
  record: DnsRecord;
  required: boolean;
  found: boolean;
}

function publishes(record: DnsRecord, row: DomainRow, values: string[]): boolean {
  const normal = values.map((v) => v.replace(/\s+/g, ' '));
  if (record.purpose === 'dkim') return normal.some((v) => v.includes(`p=${row.dkim_public_key}`));
  if (record.purpose === 'spf') return normal.some((v) => v.toLowerCase().startsWith('v=spf1'));
  if (record.purpose === 'dmarc') return normal.some((v) => v.toUpperCase().startsWith('V=DMARC1'));
  return normal.some((v) => v.includes(record.value));
}

/** Looks up every record of the domain (required and advice) and says which are published; changes nothing. */
export async function checkDomainRecords(
  db: Queryable,
  resolver: TxtResolver,
  customerId: number,
  input: string,
  sendingHost: string,
): Promise<{ row: DomainRow; checks: RecordCheck[] }> {
  const row = await getDomainRow(db, customerId, input);
  const checks: RecordCheck[] = [];
  for (const [records, required] of [
    [dnsRecords(row), true],
    [adviceRecords(row.name, sendingHost), false],
  ] as const)
    for (const record of records) checks.push({ record, required, found: publishes(record, row, await txtValues(resolver, record.name)) });
  return { row, checks };
}

/** Checks the domain's records through DNS and marks it verified when both are published; otherwise throws naming what is missing. */
export async function verifyDomain(
  db: Queryable,
  resolver: TxtResolver,
  customerId: number,
  input: string,
  now = Date.now(),
  by?: { actor: AuditActor; ip?: string },
): Promise<Domain> {
  const row = await getDomainRow(db, customerId, input);
  const missing: string[] = [];
  for (const record of dnsRecords(row))
    if (!publishes(record, row, await txtValues(resolver, record.name))) missing.push(`${record.type} ${record.name} (${record.purpose})`);
  if (missing.length > 0)
    throw new AppError('domain.verification_failed', `DNS records not found for ${row.name}: ${missing.join(', ')}`, {
      details: missing.map((m) => ({ message: `missing ${m}` })),
    });
  await markDomainVerified(db, row.id, now);
  if (by && row.verified !== 1)
    await audit(db, {
      accountId: customerId,
      actor: by.actor,
      action: 'domain.verify',
      target: `domain:${row.id}`,
      ip: by.ip,
      detail: { name: row.name },
    });
  return toDomain({ ...row, verified: 1, verified_at: now });
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
