/** The webhook endpoint API through inject: creating, reading, changing, deleting, validation, and the account boundary. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { FAST } from './webhooks.test-support.ts';

const PUBLIC_URL = 'https://93.184.215.14/hooks/sealpost';

describe('webhook endpoints API', () => {
  let t: TestApp;
  let acme: TestAccount;
  let other: TestAccount;

  beforeAll(async () => {
    t = await createTestApp({ config: FAST });
    acme = await t.createAccount({ username: 'hookacme' });
    other = await t.createAccount({ username: 'hookother' });
  });
  afterAll(() => t.close());

  const call = (
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    body?: unknown,
    who: TestAccount = acme,
  ) =>
    t.app.inject({
      method,
      url,
      headers: { ...who.auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      payload: body === undefined ? undefined : JSON.stringify(body),
    });
  const create = (body: unknown, who: TestAccount = acme) =>
    call('POST', '/v1/email/webhook_endpoints', body, who);

  it('creates an endpoint with a generated signing key shown once, then never again', async () => {
    const res = await create({
      target_url: 'http://127.0.0.1:8999/in',
      events: ['api_mail_log_delivered', 'api_mail_log_opened'],
    });
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json();
    expect(created).toEqual({
      id: expect.stringMatching(/^we_[0-9a-f]{24}$/),
      target_url: 'http://127.0.0.1:8999/in',
      events: ['api_mail_log_delivered', 'api_mail_log_opened'],
      active: true,
      disabled_at: null,
      disabled_reason: null,
      failure_streak: 0,
      previous_signing_key_active: false,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      signing_key: expect.stringMatching(/^whsec_[\w-]{43}$/),
    });
    const read = await call('GET', `/v1/email/webhook_endpoints/${created.id}`);
    expect(read.json()).toEqual({ ...created, signing_key: undefined });
    expect(JSON.stringify((await call('GET', '/v1/email/webhook_endpoints')).json())).not.toContain(
      created.signing_key,
    );
    const stored = await t.ctx.database.db
      .selectFrom('webhook_endpoints')
      .select('signing_secret')
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(stored.signing_secret).not.toContain(created.signing_key);
  });

  it('serves the same endpoints under every email prefix', async () => {
    const { id } = (
      await create({ target_url: PUBLIC_URL, events: ['api_mail_log_permanent_failure'] })
    ).json();
    for (const prefix of ['/v1/email', '/v1/hookacme', '/v1']) {
      const list = await call('GET', `${prefix}/webhook_endpoints`);
      expect(list.statusCode, prefix).toBe(200);
      expect(list.json().webhook_endpoints.map((e: { id: string }) => e.id)).toContain(id);
      expect((await call('GET', `${prefix}/webhook_endpoints/${id}`)).statusCode, prefix).toBe(200);
    }
  });

  it('keeps a given signing key and shows it in the creation answer', async () => {
    const res = await create({
      target_url: PUBLIC_URL,
      events: ['api_mail_log_delivered'],
      signing_key: 'my-own-secret-value-42',
    });
    expect(res.json().signing_key).toBe('my-own-secret-value-42');
  });

  it.each([
    [
      { target_url: PUBLIC_URL, events: ['api_mail_log_clicked'] },
      'webhook.invalid_events',
      /unknown event "api_mail_log_clicked"/,
    ],
    [
      { target_url: PUBLIC_URL, events: ['delivered', 'api_mail_log_opened'] },
      'webhook.invalid_events',
      /unknown event "delivered"/,
    ],
    [{ target_url: PUBLIC_URL }, 'request.invalid', /events is required/],
    [{ target_url: PUBLIC_URL, events: [] }, 'request.invalid', /events is required/],
    [{ events: ['api_mail_log_delivered'] }, 'request.invalid', /target_url is required/],
    [
      { target_url: 'ftp://files.example/in', events: ['api_mail_log_delivered'] },
      'webhook.invalid_url',
      /http or https, not ftp/,
    ],
    [
      { target_url: 'not a url', events: ['api_mail_log_delivered'] },
      'webhook.invalid_url',
      /not an absolute URL/,
    ],
    [
      { target_url: PUBLIC_URL, events: ['api_mail_log_delivered'], signing_key: 'short' },
      'webhook.invalid_signing_key',
      /16 to 256/,
    ],
    [
      { target_url: PUBLIC_URL, events: ['api_mail_log_delivered'], secret: 'x' },
      'request.invalid',
      /secret is not allowed/,
    ],
  ])('refuses %j with 400 %s and creates nothing', async (body, code, message) => {
    const before = (await call('GET', '/v1/email/webhook_endpoints')).json().webhook_endpoints.length;
    const res = await create(body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      error_code: code,
      message: expect.stringMatching(message),
      errors: [{ code: 400 }],
    });
    expect((await call('GET', '/v1/email/webhook_endpoints')).json().webhook_endpoints).toHaveLength(before);
  });

  it('changes URL and events, keeps the key out of the answer, and validates the change', async () => {
    const { id } = (await create({ target_url: PUBLIC_URL, events: ['api_mail_log_delivered'] })).json();
    const res = await call('PATCH', `/v1/email/webhook_endpoints/${id}`, {
      target_url: 'https://93.184.215.14/v2',
      events: ['api_mail_log_temporary_failure', 'api_mail_log_delivered'],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      target_url: 'https://93.184.215.14/v2',
      events: ['api_mail_log_delivered', 'api_mail_log_temporary_failure'],
    });
    expect(res.json().signing_key).toBeUndefined();
    const bad = await call('PATCH', `/v1/email/webhook_endpoints/${id}`, {
      events: ['api_mail_log_bounced'],
    });
    expect(bad.statusCode).toBe(400);
    expect((await call('GET', `/v1/email/webhook_endpoints/${id}`)).json().events).toEqual([
      'api_mail_log_delivered',
      'api_mail_log_temporary_failure',
    ]);
  });

  it('rotates to a generated key, keeping the previous one until it is retired', async () => {
    const { id } = (await create({ target_url: PUBLIC_URL, events: ['api_mail_log_delivered'] })).json();
    const rotated = await call('PATCH', `/v1/email/webhook_endpoints/${id}`, { rotate_signing_key: true });
    expect(rotated.json()).toMatchObject({
      signing_key: expect.stringMatching(/^whsec_/),
      previous_signing_key_active: true,
    });
    const retired = await call('PATCH', `/v1/email/webhook_endpoints/${id}`, {
      retire_previous_signing_key: true,
    });
    expect(retired.json()).toMatchObject({ previous_signing_key_active: false });
  });

  it('switches an endpoint off and on', async () => {
    const { id } = (
      await create({ target_url: PUBLIC_URL, events: ['api_mail_log_delivered'], active: false })
    ).json();
    expect((await call('GET', `/v1/email/webhook_endpoints/${id}`)).json().active).toBe(false);
    expect((await call('PATCH', `/v1/email/webhook_endpoints/${id}`, { active: true })).json().active).toBe(
      true,
    );
  });

  it('deletes an endpoint', async () => {
    const { id } = (await create({ target_url: PUBLIC_URL, events: ['api_mail_log_delivered'] })).json();
    const res = await call('DELETE', `/v1/email/webhook_endpoints/${id}`);
    expect(res.json()).toEqual({ id, deleted: true });
    expect((await call('GET', `/v1/email/webhook_endpoints/${id}`)).statusCode).toBe(404);
  });

  it("answers 404 for another account's endpoint on every operation and changes nothing", async () => {
    const { id } = (
      await create({ target_url: PUBLIC_URL, events: ['api_mail_log_delivered'] }, other)
    ).json();
    const attempts: [method: 'GET' | 'PATCH' | 'DELETE' | 'POST', url: string, body?: unknown][] = [
      ['GET', `/v1/email/webhook_endpoints/${id}`],
      ['PATCH', `/v1/email/webhook_endpoints/${id}`, { active: false }],
      ['DELETE', `/v1/email/webhook_endpoints/${id}`],
      ['POST', `/v1/email/webhook_endpoints/${id}/replay`, { since: '2020-01-01T00:00:00Z' }],
      ['GET', `/v1/email/webhook_endpoints/${id}/attempts`],
    ];
    for (const [method, url, body] of attempts) {
      const res = await call(method, url, body);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().error_code).toBe('webhook.not_found');
    }
    expect((await call('GET', `/v1/email/webhook_endpoints/${id}`, undefined, other)).json()).toMatchObject({
      active: true,
    });
    expect(
      (await call('GET', '/v1/email/webhook_endpoints'))
        .json()
        .webhook_endpoints.map((e: { id: string }) => e.id),
    ).not.toContain(id);
  });

  it("answers 403 under another account's username", async () => {
    expect((await call('GET', '/v1/hookother/webhook_endpoints')).statusCode).toBe(403);
  });

  it('validates a replay request', async () => {
    const { id } = (await create({ target_url: PUBLIC_URL, events: ['api_mail_log_delivered'] })).json();
    const empty = await call('POST', `/v1/email/webhook_endpoints/${id}/replay`, {});
    expect(empty.statusCode).toBe(400);
    expect(empty.json().message).toMatch(/give since .* or event_ids/);
    const bad = await call('POST', `/v1/email/webhook_endpoints/${id}/replay`, { since: 'yesterday' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/since must be an ISO 8601 time/);
    const none = await call('POST', `/v1/email/webhook_endpoints/${id}/replay`, {
      since: '2020-01-01T00:00:00Z',
    });
    expect(none.json()).toEqual({ replayed: 0, already_pending: 0, last_event_id: null, truncated: false });
  });

  it('lists the attempts of an endpoint (none yet)', async () => {
    const { id } = (await create({ target_url: PUBLIC_URL, events: ['api_mail_log_delivered'] })).json();
    expect((await call('GET', `/v1/email/webhook_endpoints/${id}/attempts?limit=10`)).json()).toEqual({
      attempts: [],
    });
  });

  it('appears in the OpenAPI document', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/v1/email/webhook_endpoints', '/v1/email/webhook_endpoints/{id}/replay']),
    );
  });
});

describe('webhook target URL safety', () => {
  let t: TestApp;
  let acct: TestAccount;

  beforeAll(async () => {
    t = await createTestApp({ config: { webhookAllowPrivateTargets: false } });
    acct = await t.createAccount();
  });
  afterAll(() => t.close());

  const create = (target_url: string) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/webhook_endpoints',
      headers: { ...acct.auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ target_url, events: ['api_mail_log_delivered'] }),
    });

  it.each([
    'http://127.0.0.1:8080/hook',
    'http://localhost/hook',
    'http://10.0.0.5/hook',
    'http://172.16.3.4/hook',
    'http://192.168.1.1/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://0.0.0.0/hook',
    'http://[::1]/hook',
    'http://[::]/hook',
    'http://[fe80::1]/hook',
    'http://[fd12:3456::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://[64:ff9b:1::a00:1]/hook',
    'http://[64:ff9b:1:7f00:1::]/hook',
    'http://2130706433/hook',
  ])('refuses %s with 400 and a message naming the address', async (url) => {
    const res = await create(url);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({
      error_code: 'webhook.target_refused',
      message: expect.stringMatching(/private, loopback, link-local/),
    });
  });

  it('refuses a change of URL to a private address and keeps the old one', async () => {
    const created = await create('https://93.184.215.14/hook');
    expect(created.statusCode).toBe(201);
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/v1/webhook_endpoints/${created.json().id}`,
      headers: { ...acct.auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ target_url: 'http://192.168.0.10/hook' }),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/is 192\.168\.0\.10/);
    const read = await t.app.inject({
      method: 'GET',
      url: `/v1/webhook_endpoints/${created.json().id}`,
      headers: acct.auth,
    });
    expect(read.json().target_url).toBe('https://93.184.215.14/hook');
  });
});
