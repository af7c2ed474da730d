/** The SPF advice names what receivers will see mail come from: a configured host name or a relay's documented include. */
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import {
  checkDomainRecords,
  dnsRecords,
  sendingHostOf,
  UNKNOWN_SENDING_HOST,
  type TxtResolver,
} from './dns-checks.ts';

const row = {
  name: 'clinic.example',
  verification_token: 'tok',
  dkim_selector: 'sp1',
  dkim_public_key: 'MIIB',
  dkim_algorithm: 'rsa',
  dkim2_selector: null,
  dkim2_public_key: null,
};

const spfOf = (config: Parameters<typeof sendingHostOf>[0]) =>
  dnsRecords(row, sendingHostOf(config)).find((r) => r.purpose === 'spf')!;

describe('SPF advice', () => {
  it('never names the machine’s own host name, and says so when no sending host is configured', () => {
    for (const publicUrl of [undefined, 'http://localhost:8080', 'http://127.0.0.1:8080', 'http://vm:8080']) {
      const spf = spfOf({ transport: 'mx', publicUrl });
      expect(spf.value).toBe(`v=spf1 a:${UNKNOWN_SENDING_HOST} ~all`);
      expect(spf.value).not.toContain(`a:${hostname()} `);
      expect(spf.note).toMatch(/No public sending host is configured/);
    }
  });

  it('names the HELO name, else the public URL’s host', () => {
    expect(
      spfOf({ transport: 'mx', heloName: 'out.clinic.example', publicUrl: 'https://mail.clinic.example' }),
    ).toEqual({
      type: 'TXT',
      name: 'clinic.example',
      value: 'v=spf1 a:out.clinic.example ~all',
      purpose: 'spf',
    });
    expect(spfOf({ transport: 'capture', publicUrl: 'https://mail.clinic.example/' }).value).toBe(
      'v=spf1 a:mail.clinic.example ~all',
    );
  });

  it('names a known relay’s documented include, and an unknown relay’s own host', () => {
    expect(spfOf({ transport: 'relay', relayUrl: 'smtp://apikey:s3cret@smtp.sendgrid.net:587' }).value).toBe(
      'v=spf1 include:sendgrid.net ~all',
    );
    expect(
      spfOf({ transport: 'relay', relayUrl: 'smtps://u:p@email-smtp.eu-west-1.amazonaws.com:465' }).value,
    ).toBe('v=spf1 include:amazonses.com ~all');
    expect(spfOf({ transport: 'relay', relayUrl: 'smtp://relay.hospital.example:587' }).value).toBe(
      'v=spf1 a:relay.hospital.example ~all',
    );
  });

  it('checks a published record against the include, and only for presence when no host is known', async () => {
    const resolver = (spf: string): TxtResolver => ({
      resolveTxt: async (name) => (name === 'clinic.example' ? [[spf]] : []),
    });
    const spfCheck = async (spf: string, config: Parameters<typeof sendingHostOf>[0]) =>
      (await checkDomainRecords(resolver(spf), row, sendingHostOf(config))).find((c) => c.purpose === 'spf');
    const relay = { transport: 'relay', relayUrl: 'smtp://smtp.sendgrid.net:587' };
    expect(await spfCheck('v=spf1 include:sendgrid.net ~all', relay)).toMatchObject({ ok: true });
    expect(await spfCheck('v=spf1 include:mailgun.org ~all', relay)).toMatchObject({
      ok: false,
      detail: 'SPF record does not include the sending host sendgrid.net',
    });
    expect(await spfCheck('v=spf1 mx ~all', { transport: 'mx' })).toMatchObject({
      ok: true,
      detail: 'SPF record found; no sending host is configured to check it against',
    });
  });
});
