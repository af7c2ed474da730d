/**
 * `sealpost doctor`: checks a deployment as it is configured, one named step after another (configuration, database and
 * schema, disk space, master key, the SMTP certificate, the relay, each verified domain's DNS, the bounce domain's MX)
 * and reports each as ok, warn, fail or skip. It changes nothing: it generates no key or certificate and applies no migration.
 */
import { X509Certificate } from 'node:crypto';
import { existsSync, readFileSync, statfsSync } from 'node:fs';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { databaseTarget } from '../config/load.ts';
import type { Config } from '../config/schema.ts';
import { decodeMasterKey } from '../crypto/master-key.ts';
import { connect, type Database } from '../db/connect.ts';
import { pendingMigrations } from '../db/migrate.ts';
import { listAllVerifiedDomains } from '../accounts/domains.repository.ts';
import {
  checkDomainRecords,
  REQUIRED_PURPOSES,
  sendingHostOf,
  type TxtResolver,
} from '../accounts/dns-checks.ts';
import { checkKeyOnDatabase, keyFingerprint, masterKeySource } from './master-key-check.ts';
import { redactUrl } from './redact-url.ts';
import { bounceDomainOf } from '../mail/return-path.ts';

/** The verdict of one check. */
export type Status = 'ok' | 'warn' | 'fail' | 'skip';

/** One line of the report. */
export interface Check {
  check: string;
  status: Status;
  detail: string;
}

/** What the doctor may be given instead of the real thing (tests: DNS). */
export interface DoctorOptions {
  /** TXT look-ups, and MX look-ups for the bounce domain (checked only when the resolver can). */
  resolver: TxtResolver & { resolveMx?(name: string): Promise<{ exchange: string; priority: number }[]> };
  /** Days before expiry from which a certificate is reported as a warning. */
  certWarnDays?: number;
  now?: number;
}

const GIB = 1024 ** 3;

/** Runs every check and returns the report; never throws for what it checks. */
export async function runDoctor(config: Config, opts: DoctorOptions): Promise<Check[]> {
  const report: Check[] = [];
  const add = (check: string, status: Status, detail: string) => report.push({ check, status, detail });
  add('configuration', 'ok', `valid; transport ${config.transport}, roles ${config.roles}`);
  const database = await openDatabase(config, add);
  checkDisk(config, add);
  if (database) {
    try {
      await checkMasterKey(config, database, add);
      await checkDomains(config, database, opts.resolver, add);
    } finally {
      await database.close();
    }
  } else add('master key', 'skip', 'needs the database');
  checkCertificate(config, opts, add);
  await checkRelay(config, add);
  await checkBounceDomain(config, opts.resolver, add);
  return report;
}

type Add = (check: string, status: Status, detail: string) => void;

async function openDatabase(config: Config, add: Add): Promise<Database | undefined> {
  const target = databaseTarget(config);
  const where = target.dialect === 'sqlite' ? target.file : redactUrl(target.url);
  if (target.dialect === 'sqlite' && target.file !== ':memory:' && !existsSync(target.file)) {
    add('database', 'fail', `${where} does not exist (run sealpost migrate or start)`);
    return undefined;
  }
  let database: Database;
  try {
    database = await connect(target, { poolSize: 2 });
  } catch (err) {
    add('database', 'fail', `${where} unreachable: ${(err as Error).message.split('\n')[0]}`);
    return undefined;
  }
  const pending = await pendingMigrations(database).catch(() => null);
  if (pending === null) add('database', 'fail', `${where} answers but its schema cannot be read`);
  else if (pending.length > 0)
    add('database', 'warn', `${target.dialect} ${where}; migrations pending: ${pending.join(', ')}`);
  else add('database', 'ok', `${target.dialect} ${where}; schema current`);
  return database;
}

function checkDisk(config: Config, add: Add): void {
  const dir = path.resolve(config.dataDir);
  if (!existsSync(dir)) {
    add('disk space', databaseTarget(config).dialect === 'sqlite' ? 'fail' : 'skip', `${dir} does not exist`);
    return;
  }
  const fs = statfsSync(dir);
  const free = fs.bavail * fs.bsize;
  const share = free / (fs.blocks * fs.bsize);
  const text = `${(free / GIB).toFixed(1)} GiB free (${Math.round(share * 100)}%) under ${dir}`;
  add('disk space', free < GIB / 4 ? 'fail' : free < GIB || share < 0.1 ? 'warn' : 'ok', text);
}

async function checkMasterKey(config: Config, database: Database, add: Add): Promise<void> {
  const source = masterKeySource(config);
  let key: Buffer;
  try {
    if (config.masterKey) key = decodeMasterKey(config.masterKey, source);
    else if (existsSync(source)) key = decodeMasterKey(readFileSync(source, 'utf8'), source);
    else return add('master key', 'fail', `${source} does not exist (it is generated at the first start)`);
  } catch (err) {
    return add('master key', 'fail', (err as Error).message);
  }
  const check = await checkKeyOnDatabase(database.db, key, source);
  const described = `${source}, fingerprint ${keyFingerprint(key)}`;
  if (check.result === 'nothing-sealed')
    return add('master key', 'ok', `${described}; nothing encrypted yet to check it against`);
  if (check.result === 'ok') add('master key', 'ok', `${described}; decrypts stored data`);
  else {
    const by = check.sealedBy ? `, sealed with the key of fingerprint ${check.sealedBy}` : '';
    add('master key', 'fail', `${described}; does NOT decrypt stored data (another key was used${by})`);
  }
}

function checkCertificate(config: Config, opts: DoctorOptions, add: Add): void {
  const file = config.smtpTlsCertFile || path.resolve(config.dataDir, 'smtp-tls', 'cert.pem');
  if (!existsSync(file)) {
    add('tls certificate', config.smtpTlsCertFile ? 'fail' : 'skip', `${file} does not exist`);
    return;
  }
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(readFileSync(file));
  } catch (err) {
    return add('tls certificate', 'fail', `${file} is not a PEM certificate: ${(err as Error).message}`);
  }
  const days = Math.floor((Date.parse(cert.validTo) - (opts.now ?? Date.now())) / 86_400_000);
  const selfSigned = cert.issuer === cert.subject;
  const text = `${file} expires ${new Date(cert.validTo).toISOString().slice(0, 10)} (${days} days)${selfSigned ? ', self-signed' : ''}`;
  add(
    'tls certificate',
    days < 0 ? 'fail' : days < (opts.certWarnDays ?? 14) || selfSigned ? 'warn' : 'ok',
    text,
  );
}

async function checkRelay(config: Config, add: Add): Promise<void> {
  if (config.transport !== 'relay') {
    add(
      'relay',
      'skip',
      config.transport === 'capture' ? 'capture transport: mail is kept, not sent' : 'mx transport: no relay',
    );
    return;
  }
  if (!config.relayUrl) return add('relay', 'fail', 'SEALPOST_RELAY_URL is not set');
  const transport = nodemailer.createTransport({
    url: config.relayUrl,
    tls: { rejectUnauthorized: config.tlsVerify },
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
  } as Parameters<typeof nodemailer.createTransport>[0]);
  try {
    await transport.verify();
    add('relay', 'ok', `${redactUrl(config.relayUrl)} answers and accepts the credentials`);
  } catch (err) {
    add('relay', 'fail', `${redactUrl(config.relayUrl)}: ${(err as Error).message.split('\n')[0]}`);
  } finally {
    transport.close();
  }
}

async function checkDomains(
  config: Config,
  database: Database,
  resolver: TxtResolver,
  add: Add,
): Promise<void> {
  const domains = await listAllVerifiedDomains(database.db);
  if (domains.length === 0) return add('dns', 'skip', 'no verified domains');
  const host = sendingHostOf(config);
  for (const domain of domains) {
    if (domain.verified_without_dns === 1) {
      add(
        `dns ${domain.name}`,
        'warn',
        'marked verified without a DNS check (--verified): development only; publish its records and run `sealpost domain verify` before sending real mail',
      );
      continue;
    }
    const checks = await checkDomainRecords(resolver, domain, host);
    const missing = checks.filter((c) => !c.ok);
    const status: Status = missing.some((c) => REQUIRED_PURPOSES.includes(c.purpose))
      ? 'fail'
      : missing.length
        ? 'warn'
        : 'ok';
    const detail = missing.length
      ? missing.map((c) => `${c.purpose}: ${c.detail}`).join('; ')
      : 'ownership, DKIM, SPF and DMARC published';
    add(`dns ${domain.name}`, status, detail);
  }
}

/** The bounce domain must have an MX record (reports after delivery are sent to it) and port 25 must be on. */
async function checkBounceDomain(
  config: Config,
  resolver: DoctorOptions['resolver'],
  add: Add,
): Promise<void> {
  const domain = bounceDomainOf(config.bounceDomain);
  if (!domain) return add('bounce domain', 'skip', 'not set: bounces after delivery are not read');
  if (config.smtpPort25 === 0)
    return add(
      'bounce domain',
      'fail',
      `${domain}: SEALPOST_SMTP_PORT_25 is 0, so no listener takes reports`,
    );
  if (!resolver.resolveMx) return add('bounce domain', 'skip', `${domain}: no MX look-up available`);
  const hosts = await resolver.resolveMx(domain).catch(() => []);
  if (hosts.length === 0) return add('bounce domain', 'fail', `${domain} has no MX record`);
  const names = hosts.sort((a, b) => a.priority - b.priority).map((h) => h.exchange);
  add('bounce domain', 'ok', `${domain} MX ${names.join(', ')} (must be this server)`);
}

/** The report as an aligned table. */
export function reportTable(report: Check[]): string {
  const width = Math.max(...report.map((c) => c.check.length), 5);
  const lines = report.map(
    (c) => `${c.check.padEnd(width)}  ${c.status.toUpperCase().padEnd(4)}  ${c.detail}`,
  );
  return [`${'CHECK'.padEnd(width)}  STAT  DETAIL`, ...lines].join('\n');
}
