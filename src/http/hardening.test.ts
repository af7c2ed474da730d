import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { contactForm, createForm } from '../forms/forms.test-support.ts';
import { makeList, marketingClient } from '../marketing/marketing.test-support.ts';

/** JSON nested `depth` levels deep inside `{"data": ...}`. */
const deepJson = (depth: number) => `{"data":${'['.repeat(depth)}${']'.repeat(depth)}}`;

async function count(
  t: TestApp,
  table: 'messages' | 'forms' | 'form_submissions' | 'drip_campaigns',
): Promise<number> {
  const r = await t.ctx.database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

describe('hostile input gets a 4xx, never a 5xx', () => {
  let t: TestApp;
  let a: TestAccount;
  let formId: string;
  beforeAll(async () => {
    t = await createTestApp({ config: { maxRecipientsPerMessage: 5 } });
    a = await t.createAccount();
    formId = await createForm(t.app, a.auth);
  });
  afterAll(() => t.close());

  it('sends X-Content-Type-Options: nosniff on answers, errors, pages and unknown paths alike', async () => {
    for (const req of [
      { method: 'GET' as const, url: '/healthz' },
      { method: 'GET' as const, url: '/v1/email/messages' },
      { method: 'GET' as const, url: `/f/${formId}` },
      { method: 'GET' as const, url: '/nowhere', headers: a.auth },
      { method: 'GET' as const, url: '/openapi.json' },
    ]) {
      const res = await t.app.inject(req);
      expect(res.headers['x-content-type-options'], req.url).toBe('nosniff');
    }
  });

  it('answers 400 to JSON nested 2,000 levels deep, on the public submission and on an authenticated route', async () => {
    const before = await count(t, 'form_submissions');
    const pub = await t.app.inject({
      method: 'POST',
      url: `/v1/forms/api/forms/${formId}/submissions`,
      headers: { 'content-type': 'application/json' },
      payload: deepJson(2000),
    });
    expect(pub.statusCode).toBe(400);
    expect(pub.json().message).toMatch(/nested deeper than 64/);
    const auth = await t.app.inject({
      method: 'POST',
      url: '/v1/email/messages',
      headers: { ...a.auth, 'content-type': 'application/json' },
      payload: deepJson(2000),
    });
    expect(auth.statusCode).toBe(400);
    expect(await count(t, 'form_submissions')).toBe(before);
  });

  it('answers 400 to multipart without a boundary on the hosted form post and the template upload', async () => {
    for (const [url, headers] of [
      [`/f/${formId}`, {}],
      ['/v1/email/dynamic_templates', a.auth],
    ] as const) {
      const res = await t.app.inject({
        method: 'POST',
        url,
        headers: { ...headers, 'content-type': 'multipart/form-data' },
        payload: 'name=x',
      });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().message).toMatch(/boundary/);
    }
  });

  it.each(['__proto__', 'constructor', 'toString'])(
    'refuses %s as a component type or a field name with 422, storing nothing',
    async (name) => {
      const before = await count(t, 'forms');
      const asType = { body: [{ type: name, id: 'x', properties: {} }] };
      const asField = { body: [{ type: 'TextInput', id: 'x', properties: { field_name: name, text: 'T' } }] };
      for (const form_json of [asType, asField]) {
        const res = await t.app.inject({
          method: 'POST',
          url: '/v1/forms/api/forms',
          headers: a.auth,
          payload: JSON.parse(
            JSON.stringify({ title: 'T', version: 1 }).replace(
              '}',
              `,"form_json":${JSON.stringify(form_json)}}`,
            ),
          ),
        });
        expect(res.statusCode, JSON.stringify(form_json)).toBe(422);
      }
      expect(await count(t, 'forms')).toBe(before);
    },
  );

  it.each(['__proto__', 'constructor', 'toString'])(
    'refuses %s as a drip trigger or node id with 422',
    async (name) => {
      const call = marketingClient(t, a);
      const before = await count(t, 'drip_campaigns');
      const asTrigger = JSON.stringify({ nodes: [{ id: 'start', type: 'start', trigger: name }], edges: [] });
      const asNode = `{"nodes":[{"id":"start","type":"start"},{"id":${JSON.stringify(name)},"type":"end"}],"edges":[{"from":"start","to":${JSON.stringify(name)}}]}`;
      for (const nodes of [asTrigger, asNode]) {
        const res = await call('POST', '/drip_campaigns', {
          drip_campaign: { name: 'D', drip_campaign_nodes: nodes },
        });
        expect(res.statusCode, nodes).toBe(422);
      }
      const field = await call('POST', '/drip_campaigns', {
        drip_campaign: { name: 'D', start_trigger: name },
      });
      expect(field.statusCode).toBe(422);
      expect(await count(t, 'drip_campaigns')).toBe(before);
    },
  );

  it('refuses a message over the recipient cap with 400 naming the cap, storing nothing', async () => {
    const before = await count(t, 'messages');
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/email/messages',
      headers: a.auth,
      payload: {
        data: {
          message: {
            recipients: ['a@example.org', 'b@example.org'],
            cc: ['c@example.org', 'd@example.org'],
            bcc: ['e@example.org', 'f@example.org'],
            headers: { from: `noreply@${a.domain}`, subject: 'Many' },
            content: { 'text/plain': 'x' },
          },
        },
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error_code).toBe('email.too_many_recipients');
    expect(res.json().message).toMatch(/at most 5/);
    expect(await count(t, 'messages')).toBe(before);
  });

  it("refuses a form naming another account's subscription list, on create and on change", async () => {
    const other = await t.createAccount();
    const theirs = await makeList(marketingClient(t, other), 'Theirs');
    const before = await count(t, 'forms');
    const create = await t.app.inject({
      method: 'POST',
      url: '/v1/forms/api/forms',
      headers: a.auth,
      payload: {
        title: 'T',
        version: 1,
        form_json: contactForm(),
        type: 'marketing_form',
        subscription_list_id: theirs,
      },
    });
    expect(create.statusCode).toBe(404);
    expect(create.json().error_code).toBe('marketing.list_not_found');
    expect(await count(t, 'forms')).toBe(before);
    const change = await t.app.inject({
      method: 'PUT',
      url: `/v1/forms/api/forms/${formId}`,
      headers: a.auth,
      payload: { subscription_list_id: theirs },
    });
    expect(change.statusCode).toBe(404);
    const mine = await makeList(marketingClient(t, a), 'Mine');
    const ok = await t.app.inject({
      method: 'PUT',
      url: `/v1/forms/api/forms/${formId}`,
      headers: a.auth,
      payload: { subscription_list_id: mine },
    });
    expect(ok.statusCode).toBe(200);
  });
});

describe('failed authentication throttling over HTTP', () => {
  let t: TestApp;
  let a: TestAccount;
  beforeAll(async () => {
    t = await createTestApp({ config: { authFailuresPerWindow: 3 } });
    a = await t.createAccount();
  });
  afterAll(() => t.close());

  const badKey = (key: string, remoteAddress: string) =>
    t.app.inject({
      method: 'GET',
      url: '/v1/email/messages',
      headers: { authorization: `Bearer ${key}` },
      remoteAddress,
    });

  it('refuses further failures from an address with 429 and Retry-After, counting them in /metrics', async () => {
    for (let i = 0; i < 3; i++) expect((await badKey(`sp_a${i}wrong`, '203.0.113.9')).statusCode).toBe(401);
    const refused = await badKey('sp_a3wrong', '203.0.113.9');
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error_code).toBe('auth.throttled');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await badKey('sp_a4wrong', '203.0.113.10')).statusCode).toBe(401);
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toMatch(/sealpost_auth_failures_total\{door="http"\} 5/);
  });

  it("never refuses another tenant's valid key from a throttled address", async () => {
    const b = await t.createAccount();
    for (let i = 0; i < 4; i++) await badKey(`sp_b${i}wrong`, '203.0.113.20');
    expect((await badKey('sp_b4wrong', '203.0.113.20')).statusCode).toBe(429);
    for (const auth of [a.auth, b.auth]) {
      const ok = await t.app.inject({
        method: 'GET',
        url: '/v1/email/dynamic_templates',
        headers: auth,
        remoteAddress: '203.0.113.20',
      });
      expect(ok.statusCode).toBe(200);
    }
  });

  it('refuses failures on one key prefix tried from many addresses', async () => {
    for (let i = 0; i < 3; i++)
      expect((await badKey(`sp_cprefix${i}`, `198.51.100.${i}`)).statusCode).toBe(401);
    expect((await badKey('sp_cprefix9', '198.51.100.9')).statusCode).toBe(429);
  });
});
