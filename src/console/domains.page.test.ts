/** The domains page over HTTP with DNS replaced: records to publish, "Verify" with a result per record, roles refused by the server. */
import { describe, expect, it } from 'vitest';
import { consoleTestBed } from './console.test-support.ts';

/** Published TXT records by name: the test's DNS. */
const zone = new Map<string, string[]>();
const dns = {
  resolveTxt: async (name: string) => {
    const values = zone.get(name);
    if (!values) throw Object.assign(new Error(`ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    return values.map((v) => [v.slice(0, 200), v.slice(200)].filter(Boolean));
  },
};

const {
  t,
  a,
  clients: [owner, viewer],
} = consoleTestBed(['owner', 'viewer'], { dns });

const cells = (body: string) =>
  [...body.matchAll(/<code id="rec-(name|value)-(\d)" class="mono">([^<]+)</g)].map((m) => m[3]!);

describe('domains page', () => {
  it('adds a domain and shows ownership, DKIM, SPF and DMARC records with copy buttons', async () => {
    const res = await owner.post('/console/domains', { _csrf: owner.csrf, domain: 'Mail.Clinic.Example' });
    expect(res.headers.location).toBe('/console/domains/mail.clinic.example');
    const page = await owner.get('/console/domains/mail.clinic.example');
    const c = cells(page.body);
    expect(c[0]).toBe('_sealpost.mail.clinic.example');
    expect(c[1]).toMatch(/^sealpost-verification=/);
    expect(c[2]).toMatch(/^sp\d{6}\._domainkey\.mail\.clinic\.example$/);
    expect(c[3]).toMatch(/^v=DKIM1; k=rsa; p=/);
    expect(c[5]).toMatch(/^v=spf1 /);
    expect(c[6]).toBe('_dmarc.mail.clinic.example');
    expect(page.body.match(/data-copy="rec-/g)).toHaveLength(8);
    expect(page.body).toContain('Not verified yet');
  });

  it('verifies with a result per record: missing DKIM keeps it unverified, then all found verifies it', async () => {
    const page = await owner.get('/console/domains/mail.clinic.example');
    const c = cells(page.body);
    zone.set(c[0]!, [c[1]!]);
    const verify = async () => {
      const posted = await owner.post('/console/domains/mail.clinic.example/verify', { _csrf: owner.csrf });
      expect(posted.statusCode).toBe(303);
      expect(posted.headers.location).toBe('/console/domains/mail.clinic.example?checked');
      return owner.get(posted.headers.location as string);
    };
    let res = await verify();
    expect(res.body.match(/>Found</g)).toHaveLength(1);
    expect(res.body.match(/>Not found</g)).toHaveLength(3);
    expect(res.body).toContain('Not verified: a required record was not found');
    zone.set(c[2]!, [c[3]!]);
    zone.set('_dmarc.mail.clinic.example', ['v=DMARC1; p=reject']);
    res = await verify();
    expect(res.body.match(/>Found</g)).toHaveLength(3);
    expect(res.body).toContain('is verified');
    expect((await owner.get('/console/domains')).body).toMatch(/mail\.clinic\.example<\/a> —\s+verified/);
    const audit = await t.ctx.database.db
      .selectFrom('audit_log')
      .select('action')
      .where('action', 'like', 'domain.%')
      .where('actor_type', '=', 'user')
      .execute();
    expect(audit.map((r) => r.action).sort()).toEqual(['domain.add', 'domain.verify']);
  });

  it('refuses a bad name with a clear error and adds nothing', async () => {
    await owner.post('/console/domains', { _csrf: owner.csrf, domain: 'not a domain' });
    expect((await owner.get('/console/domains')).body).toMatch(/is not a valid domain name/i);
    expect(await t.ctx.database.db.selectFrom('domains').select('id').execute()).toHaveLength(2);
  });

  it('refuses a viewer on the server and shows no form', async () => {
    expect(
      (await viewer.post('/console/domains', { _csrf: viewer.csrf, domain: 'v.example' })).statusCode,
    ).toBe(403);
    expect(
      (await viewer.post(`/console/domains/${a.domain}/verify`, { _csrf: viewer.csrf })).statusCode,
    ).toBe(403);
    const list = await viewer.get('/console/domains');
    expect(list.body).toContain(a.domain);
    expect(list.body).not.toContain('Add domain');
    expect((await viewer.get(`/console/domains/${a.domain}`)).body).not.toContain('>Verify<');
  });

  it('adds a domain signing with RSA and Ed25519 and shows a DKIM record for each key', async () => {
    await owner.post('/console/domains', { _csrf: owner.csrf, domain: 'dual.clinic.example', dkim: 'both' });
    const c = cells((await owner.get('/console/domains/dual.clinic.example')).body);
    expect(c[3]).toMatch(/^v=DKIM1; k=rsa; p=/);
    expect(c[4]).toMatch(/^sp\d{6}e\._domainkey\.dual\.clinic\.example$/);
    expect(c[5]).toMatch(/^v=DKIM1; k=ed25519; p=/);
  });
});
