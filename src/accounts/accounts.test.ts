import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BY, createTestContext, type TestContext } from '../test/harness.ts';
import { createAccount, getAccount } from './accounts.service.ts';
import { addDomain, dkimSealContext, verifyDomain, type TxtResolver } from './domains.service.ts';
import { createPrivateKey } from 'node:crypto';
import { accountKeys, authenticateKey, createKey, hashKey } from './keys.service.ts';
import { AppError } from '../errors/app-error.ts';

const codeOf = async (p: Promise<unknown>): Promise<string | undefined> => {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return err.code;
    throw err;
  }
  return undefined;
};

describe('accounts, domains and keys', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestContext();
  });
  afterAll(() => t.close());
  const db = () => t.ctx.database.db;

  it('gives accounts integer customer ids and lower-cases usernames', async () => {
    const a = await createAccount(db(), 'Clinic-One');
    expect(a.username).toBe('clinic-one');
    expect(Number.isInteger(a.customer_id)).toBe(true);
    expect((await getAccount(db(), a.customer_id)).username).toBe('clinic-one');
    expect((await getAccount(db(), 'CLINIC-ONE')).customer_id).toBe(a.customer_id);
  });

  it.each(['email', 'forms', 'marketing', 'messages', 'bulk_messages', 'subscribers', 'v1'])(
    'refuses the route word %s as a username',
    async (word) => {
      expect(await codeOf(createAccount(db(), word))).toBe('account.username_reserved');
    },
  );

  it('refuses malformed and duplicate usernames', async () => {
    expect(await codeOf(createAccount(db(), 'has space'))).toBe('account.username_invalid');
    expect(await codeOf(createAccount(db(), 'a/b'))).toBe('account.username_invalid');
    await createAccount(db(), 'twice');
    expect(await codeOf(createAccount(db(), 'TWICE'))).toBe('account.username_taken');
  });

  it('stores only a hash of a key, never its value', async () => {
    const a = await createAccount(db(), 'hashing');
    const k = await createKey(db(), a.customer_id, { by: TEST_BY, scopes: 'email' });
    const rows = await db().selectFrom('api_keys').selectAll().where('id', '=', k.id).execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(k.key);
    expect(JSON.stringify(rows)).not.toContain(k.key.slice(10));
    expect(rows[0]!.key_hash).toBe(hashKey(k.key));
    expect(JSON.stringify(await accountKeys(db(), a.customer_id))).not.toContain(k.key);
  });

  it('keeps several active keys per domain for rotation', async () => {
    const a = await createAccount(db(), 'rotating');
    await addDomain(db(), t.ctx.sealer, a.customer_id, 'rotating.example', TEST_BY, { verified: true });
    const k1 = await createKey(db(), a.customer_id, {
      by: TEST_BY,
      scopes: 'email',
      domain: 'rotating.example',
    });
    const k2 = await createKey(db(), a.customer_id, {
      by: TEST_BY,
      scopes: 'email,forms',
      domain: 'rotating.example',
    });
    expect((await authenticateKey(db(), k1.key)).customerId).toBe(a.customer_id);
    expect([...(await authenticateKey(db(), k2.key)).scopes].sort()).toEqual(['email', 'forms']);
  });

  it('refuses unknown scopes and keys for a domain the account lacks', async () => {
    const a = await createAccount(db(), 'scoping');
    expect(await codeOf(createKey(db(), a.customer_id, { by: TEST_BY, scopes: 'email,admin' }))).toBe(
      'key.invalid_scope',
    );
    expect(
      await codeOf(createKey(db(), a.customer_id, { by: TEST_BY, scopes: 'email', domain: 'nope.example' })),
    ).toBe('domain.not_found');
  });

  it('keeps the DKIM private key sealed at rest', async () => {
    const a = await createAccount(db(), 'dkim');
    const d = await addDomain(db(), t.ctx.sealer, a.customer_id, 'dkim.example', TEST_BY);
    const row = await db().selectFrom('domains').selectAll().where('id', '=', d.id).executeTakeFirstOrThrow();
    expect(row.dkim_private_key).not.toContain('PRIVATE KEY');
    expect(t.ctx.sealer.openText(row.dkim_private_key, `dkim:${d.id}`)).toContain('BEGIN PRIVATE KEY');
  });

  it('keeps both DKIM private keys of a dual-signing domain sealed, each bound to its place', async () => {
    const a = await createAccount(db(), 'dualkeys');
    const d = await addDomain(db(), t.ctx.sealer, a.customer_id, 'dual.example', TEST_BY, { dkim: 'both' });
    expect(d.dkim_signing).toBe('both');
    expect(d.dkim_keys.map((k) => k.algorithm)).toEqual(['rsa', 'ed25519']);
    const row = await db().selectFrom('domains').selectAll().where('id', '=', d.id).executeTakeFirstOrThrow();
    expect(row.dkim2_private_key).not.toContain('PRIVATE KEY');
    const pem = t.ctx.sealer.openText(row.dkim2_private_key!, dkimSealContext(d.id, true));
    expect(createPrivateKey(pem).asymmetricKeyType).toBe('ed25519');
    expect(() => t.ctx.sealer.openText(row.dkim2_private_key!, dkimSealContext(d.id))).toThrow();
  });

  it('lists one DKIM record per key, and verifies a dual-signing domain only once both are published', async () => {
    const a = await createAccount(db(), 'dualverify');
    const d = await addDomain(db(), t.ctx.sealer, a.customer_id, 'dualverify.example', TEST_BY, {
      dkim: 'both',
    });
    const dkim = d.dns_records.filter((r) => r.purpose === 'dkim');
    expect(dkim.map((r) => r.value.split(';')[1]!.trim())).toEqual(['k=rsa', 'k=ed25519']);
    expect(dkim[1]!.name).toBe(`${d.dkim_keys[1]!.selector}._domainkey.dualverify.example`);
    // An Ed25519 record carries the bare 32-byte public key.
    expect(Buffer.from(/p=(\S+)$/.exec(dkim[1]!.value)![1]!, 'base64')).toHaveLength(32);
    const published = new Map<string, string[][]>();
    const resolver: TxtResolver = {
      resolveTxt: async (name) =>
        published.get(name) ?? Promise.reject(Object.assign(new Error('ENODATA'), { code: 'ENODATA' })),
    };
    for (const r of d.dns_records.filter((r) => r.purpose !== 'dkim' || r.value.includes('k=rsa')))
      published.set(r.name, [[r.value]]);
    const failure = await verifyDomain(db(), resolver, a.customer_id, d.domain, TEST_BY).catch(
      (e: AppError) => e,
    );
    expect((failure as AppError).message).toContain(
      `${dkim[1]!.name} (dkim: DKIM public key (Ed25519) missing)`,
    );
    published.set(dkim[1]!.name, [[dkim[1]!.value]]);
    const ok = await verifyDomain(db(), resolver, a.customer_id, d.domain, TEST_BY);
    expect(ok.dns_checks?.filter((c) => c.purpose === 'dkim').map((c) => c.detail)).toEqual([
      'DKIM public key (RSA) found',
      'DKIM public key (Ed25519) found',
    ]);
  });

  it('verifies a domain only when both DNS records are published', async () => {
    const a = await createAccount(db(), 'verifying');
    const d = await addDomain(db(), t.ctx.sealer, a.customer_id, 'verify.example', TEST_BY);
    expect(d.verified).toBe(false);
    const published = new Map<string, string[][]>();
    const resolver: TxtResolver = {
      resolveTxt: async (name) => {
        const v = published.get(name);
        if (!v) throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
        return v;
      },
    };
    const [verification, dkim] = d.dns_records;
    published.set(verification!.name, [[verification!.value]]);
    const failure = await verifyDomain(db(), resolver, a.customer_id, 'verify.example', TEST_BY).catch(
      (e: AppError) => e,
    );
    expect(failure).toBeInstanceOf(AppError);
    expect((failure as AppError).code).toBe('domain.verification_failed');
    expect((failure as AppError).message).toContain(dkim!.name);
    // DKIM records are often split into 255-character chunks.
    const value = dkim!.value;
    published.set(dkim!.name, [[value.slice(0, 200), value.slice(200)]]);
    const ok = await verifyDomain(db(), resolver, a.customer_id, 'verify.example', TEST_BY);
    expect(ok.verified).toBe(true);
    expect(ok.verified_at).not.toBeNull();
  });

  it('checks SPF and DMARC too, and names the one still missing', async () => {
    const a = await createAccount(db(), 'fourrecords');
    const d = await addDomain(db(), t.ctx.sealer, a.customer_id, 'four.example', TEST_BY, {
      sendingHost: 'mx1.sender.example',
    });
    const published = new Map<string, string[][]>();
    const resolver: TxtResolver = {
      resolveTxt: async (name) =>
        published.get(name) ?? Promise.reject(Object.assign(new Error('ENODATA'), { code: 'ENODATA' })),
      resolve4: async (name) => (name === 'mx1.sender.example' ? ['192.0.2.7'] : []),
    };
    for (const r of d.dns_records.filter((r) => r.purpose === 'verification' || r.purpose === 'dkim'))
      published.set(r.name, [[r.value]]);
    published.set('four.example', [['v=spf1 ip4:192.0.2.7 -all'], ['google-site-verification=x']]);
    const ok = await verifyDomain(db(), resolver, a.customer_id, 'four.example', TEST_BY, {
      sendingHost: 'mx1.sender.example',
    });
    expect(ok.verified).toBe(true);
    expect(ok.dns_checks?.map((c) => [c.purpose, c.ok])).toEqual([
      ['verification', true],
      ['dkim', true],
      ['spf', true],
      ['dmarc', false],
    ]);
    published.set('four.example', [['v=spf1 include:other.example -all']]);
    published.set('_dmarc.four.example', [['v=DMARC1; p=reject']]);
    const again = await verifyDomain(db(), resolver, a.customer_id, 'four.example', TEST_BY, {
      sendingHost: 'mx1.sender.example',
    });
    expect(again.dns_checks?.find((c) => c.purpose === 'spf')).toMatchObject({
      ok: false,
      detail: expect.stringContaining('mx1.sender.example'),
    });
    expect(again.dns_checks?.find((c) => c.purpose === 'dmarc')?.ok).toBe(true);
  });

  it('refuses an invalid domain name and a domain added twice', async () => {
    const a = await createAccount(db(), 'domains');
    expect(await codeOf(addDomain(db(), t.ctx.sealer, a.customer_id, 'not a domain', TEST_BY))).toBe(
      'domain.invalid',
    );
    await addDomain(db(), t.ctx.sealer, a.customer_id, 'Twice.Example', TEST_BY);
    expect(await codeOf(addDomain(db(), t.ctx.sealer, a.customer_id, 'twice.example', TEST_BY))).toBe(
      'domain.exists',
    );
  });
});
