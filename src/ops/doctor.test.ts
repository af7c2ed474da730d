/**
 * `sealpost doctor` over a real database of the run's dialect, a real SMTP relay on loopback and a certificate file;
 * DNS is the only thing replaced (an in-memory resolver). Then the command itself: table, --json and the exit code.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import selfsigned from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSealpostWith } from '../bin/cli.test-support.ts';
import { addDomain } from '../accounts/domains.service.ts';
import { createAccount } from '../accounts/accounts.service.ts';
import type { TxtResolver } from '../accounts/dns-checks.ts';
import { TEST_DIALECT } from '../test/database.ts';
import { TEST_BY, createTestContext, testConfig, type TestContext } from '../test/harness.ts';
import { startSmtpSink, testCertificate, type SmtpSink } from '../test/smtp-sink.ts';
import { runDoctor, type Check } from './doctor.ts';

const HOST = 'out.sealpost.example';

describe(`sealpost doctor (${TEST_DIALECT})`, () => {
  let t: TestContext;
  let sink: SmtpSink;
  let dir: string;
  const published = new Map<string, string[][]>();
  const resolver: TxtResolver = {
    resolveTxt: async (name) =>
      published.get(name) ?? Promise.reject(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' })),
  };

  beforeAll(async () => {
    t = await createTestContext();
    sink = await startSmtpSink({ tls: 'none' });
    dir = mkdtempSync(path.join(tmpdir(), 'sealpost-doctor-'));
    const a = await createAccount(t.ctx.database.db, 'doctor');
    const good = await addDomain(t.ctx.database.db, t.ctx.sealer, a.customer_id, 'good.example', TEST_BY, {
      verified: true,
      sendingHost: HOST,
    });
    await addDomain(t.ctx.database.db, t.ctx.sealer, a.customer_id, 'bare.example', TEST_BY, {
      verified: true,
      sendingHost: HOST,
    });
    for (const r of good.dns_records) published.set(r.name, [[r.value]]);
    // Both stand for domains verified through DNS, whose records are then checked.
    await t.ctx.database.db.updateTable('domains').set({ verified_without_dns: 0 }).execute();
  });
  afterAll(async () => {
    await sink?.close();
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const config = (over: Parameters<typeof testConfig>[0] = {}) =>
    testConfig({
      databaseUrl: t.scratch.url,
      masterKey: t.ctx.config.masterKey,
      dataDir: dir,
      heloName: HOST,
      ...over,
    });
  const byName = (report: Check[], name: string) => report.find((c) => c.check === name);

  it('passes the database, the master key, a reachable relay and a domain with all four records', async () => {
    const report = await runDoctor(config({ transport: 'relay', relayUrl: sink.url }), { resolver });
    expect(byName(report, 'database')).toMatchObject({
      status: 'ok',
      detail: expect.stringContaining('schema current'),
    });
    expect(byName(report, 'master key')).toMatchObject({
      status: 'ok',
      detail: expect.stringContaining('decrypts stored data'),
    });
    expect(byName(report, 'relay')?.status).toBe('ok');
    expect(byName(report, 'disk space')?.status).not.toBe('fail');
    // With the relay transport, SPF must name the relay; the records above name this server's HELO host.
    expect(byName(report, 'dns good.example')).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('127.0.0.1'),
    });
    expect(byName(await runDoctor(config(), { resolver }), 'dns good.example')).toMatchObject({
      status: 'ok',
    });
  });

  it('checks the MX record of the bounce domain, and skips it when none is set', async () => {
    expect(byName(await runDoctor(config(), { resolver }), 'bounce domain')?.status).toBe('skip');
    const mx = new Map([['bounces.good.example', [{ exchange: 'mail.good.example', priority: 10 }]]]);
    const withMx = { ...resolver, resolveMx: async (name: string) => mx.get(name) ?? [] };
    expect(
      byName(
        await runDoctor(config({ bounceDomain: 'bounces.good.example' }), { resolver: withMx }),
        'bounce domain',
      ),
    ).toMatchObject({ status: 'ok', detail: expect.stringContaining('mail.good.example') });
    expect(
      byName(
        await runDoctor(config({ bounceDomain: 'bounces.bare.example' }), { resolver: withMx }),
        'bounce domain',
      ),
    ).toMatchObject({ status: 'fail', detail: 'bounces.bare.example has no MX record' });
  });

  it('fails a domain without ownership and DKIM records, naming all that is missing', async () => {
    const report = await runDoctor(config(), { resolver });
    const bare = byName(report, 'dns bare.example');
    expect(bare?.status).toBe('fail');
    for (const purpose of ['verification', 'dkim', 'spf', 'dmarc'])
      expect(bare?.detail).toContain(`${purpose}:`);
  });

  it('reports a domain marked verified without DNS (the quick start’s --verified) as development only, not a failure', async () => {
    const a = await createAccount(t.ctx.database.db, 'quickstart');
    await addDomain(t.ctx.database.db, t.ctx.sealer, a.customer_id, 'dev.example', TEST_BY, {
      verified: true,
    });
    const report = await runDoctor(config(), { resolver });
    expect(byName(report, 'dns dev.example')).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('development only'),
    });
    await t.ctx.database.db.deleteFrom('domains').where('name', '=', 'dev.example').execute();
  });

  it('warns when only SPF lacks the sending host', async () => {
    published.set('good.example', [['v=spf1 include:elsewhere.example -all']]);
    const report = await runDoctor(config(), { resolver });
    expect(byName(report, 'dns good.example')).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining(HOST),
    });
    published.set('good.example', [[`v=spf1 a:${HOST} ~all`]]);
  });

  it('fails an unreachable relay and a master key that does not decrypt the data', async () => {
    const report = await runDoctor(
      config({
        transport: 'relay',
        relayUrl: 'smtp://127.0.0.1:1',
        masterKey: randomBytes(32).toString('base64'),
      }),
      {
        resolver,
      },
    );
    expect(byName(report, 'relay')?.status).toBe('fail');
    expect(byName(report, 'master key')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('does NOT decrypt'),
    });
  });

  it('fails a database it cannot reach, naming it without its password, and skips the master key', async () => {
    const report = await runDoctor(
      config({ databaseUrl: 'postgres://sealpost:s3cret@127.0.0.1:1/sealpost' }),
      {
        resolver,
      },
    );
    expect(byName(report, 'database')).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/^postgres:\/\/sealpost:\*+@127\.0\.0\.1:1\/sealpost unreachable: /),
    });
    expect(JSON.stringify(report)).not.toContain('s3cret');
    expect(byName(report, 'master key')?.status).toBe('skip');
  });

  it('warns of a certificate that expires soon and fails an expired one', async () => {
    const soon = path.join(dir, 'soon.pem');
    writeFileSync(soon, testCertificate().cert);
    const warn = await runDoctor(config({ smtpTlsCertFile: soon }), { resolver });
    expect(byName(warn, 'tls certificate')).toMatchObject({
      status: 'warn',
      detail: expect.stringMatching(/\(\d days\), self-signed/),
    });
    const expired = await runDoctor(config({ smtpTlsCertFile: soon }), {
      resolver,
      now: Date.now() + 10 * 86_400_000,
    });
    expect(byName(expired, 'tls certificate')?.status).toBe('fail');
    const later = path.join(dir, 'later.pem');
    writeFileSync(
      later,
      selfsigned.generate([{ name: 'commonName', value: HOST }], { days: 400, keySize: 2048 }).cert,
    );
    expect(
      byName(await runDoctor(config({ smtpTlsCertFile: later }), { resolver }), 'tls certificate')?.status,
    ).toBe('warn');
  });

  it('prints a table, --json, and exits 1 when a check fails', async () => {
    const vars = {
      SEALPOST_DATABASE_URL: t.scratch.url,
      SEALPOST_MASTER_KEY: t.ctx.config.masterKey!,
      SEALPOST_DATA_DIR: dir,
    };
    const table = await runSealpostWith(vars, ['doctor']);
    expect(table.stdout).toMatch(/^CHECK\s+STAT\s+DETAIL\n/);
    expect(table.stdout).toMatch(/\ndatabase\s+OK\s+/);
    const wrongKey = await runSealpostWith(
      { ...vars, SEALPOST_MASTER_KEY: randomBytes(32).toString('base64') },
      ['doctor', '--json'],
    );
    expect(wrongKey.code).toBe(1);
    const report = JSON.parse(wrongKey.stdout) as Check[];
    expect(report.find((c) => c.check === 'master key')?.status).toBe('fail');
  });
});
