import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BY, createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { createKey, KEY_CACHE_MS, revoke } from '../accounts/keys.service.ts';
import { revokeKey } from '../accounts/keys.repository.ts';

describe('authentication before route matching', () => {
  let t: TestApp;
  let acme: TestAccount;
  let other: TestAccount;

  beforeAll(async () => {
    t = await createTestApp({
      extraRoutes: (app) => {
        app.get('/v1/email/whoami', async (req) => ({ username: req.principal?.username }));
        app.get('/v1/:api_username/whoami', async (req) => ({ username: req.principal?.username }));
        app.get('/v1/forms/api/forms/whoami', async (req) => ({ username: req.principal?.username }));
        app.get('/v1/forms/public/form_data/:id/probe', async (req) => ({
          principal: req.principal ?? null,
        }));
      },
    });
    acme = await t.createAccount({ username: 'acme' });
    other = await t.createAccount({ username: 'other' });
  });
  afterAll(() => t.close());

  const get = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url, headers });

  it('accepts a Bearer key', async () => {
    const res = await get('/v1/email/whoami', acme.auth);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ username: 'acme' });
  });

  it('accepts a Token token= key, quoted or not', async () => {
    expect((await get('/v1/email/whoami', { authorization: `Token token=${acme.key}` })).json()).toEqual({
      username: 'acme',
    });
    expect((await get('/v1/email/whoami', { authorization: `Token token="${acme.key}"` })).statusCode).toBe(
      200,
    );
  });

  it('answers 401 with the documented body when the header is missing', async () => {
    const res = await get('/v1/email/whoami');
    expect(res.statusCode).toBe(401);
    const body = res.json();
    expect(body.error_code).toBe('auth.missing_key');
    expect(body.message).toMatch(/missing API key/);
    expect(body.errors).toEqual([
      { code: 401, title: 'Authentication required', details: expect.any(String), message: body.message },
    ]);
  });

  it('answers 401 for an unsupported scheme', async () => {
    const res = await get('/v1/email/whoami', {
      authorization: `Basic ${Buffer.from('apikey:' + acme.key).toString('base64')}`,
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().error_code).toBe('auth.bad_scheme');
  });

  it('answers 401 for an unknown key', async () => {
    const res = await get('/v1/email/whoami', { authorization: 'Bearer sp_not-a-real-key' });
    expect(res.statusCode).toBe(401);
    expect(res.json().error_code).toBe('auth.invalid_key');
  });

  it('answers 401 for a revoked key, while a rotated sibling key keeps working', async () => {
    const fresh = await createKey(t.ctx.database.db, acme.account.customer_id, {
      by: TEST_BY,
      scopes: 'email',
      domain: acme.domain,
    });
    const old = await createKey(t.ctx.database.db, acme.account.customer_id, {
      by: TEST_BY,
      scopes: 'email',
      domain: acme.domain,
    });
    await revoke(t.ctx.database.db, old.id, TEST_BY);
    const res = await get('/v1/email/whoami', { authorization: `Bearer ${old.key}` });
    expect(res.statusCode).toBe(401);
    expect(res.json().error_code).toBe('auth.revoked_key');
    expect((await get('/v1/email/whoami', { authorization: `Bearer ${fresh.key}` })).statusCode).toBe(200);
  });

  it('answers 401 at once for a key revoked here after it was used', async () => {
    const key = await createKey(t.ctx.database.db, acme.account.customer_id, {
      by: TEST_BY,
      scopes: 'email',
      domain: acme.domain,
    });
    expect((await get('/v1/email/whoami', { authorization: `Bearer ${key.key}` })).statusCode).toBe(200);
    await revoke(t.ctx.database.db, key.id, TEST_BY);
    expect((await get('/v1/email/whoami', { authorization: `Bearer ${key.key}` })).json().error_code).toBe(
      'auth.revoked_key',
    );
  });

  it('answers 401 within KEY_CACHE_MS for a key revoked by another process', async () => {
    const key = await createKey(t.ctx.database.db, acme.account.customer_id, {
      by: TEST_BY,
      scopes: 'email',
      domain: acme.domain,
    });
    expect((await get('/v1/email/whoami', { authorization: `Bearer ${key.key}` })).statusCode).toBe(200);
    await revokeKey(t.ctx.database.db, key.id, Date.now()); // what `sealpost key revoke` does in its own process
    await new Promise((resolve) => setTimeout(resolve, KEY_CACHE_MS + 50));
    expect((await get('/v1/email/whoami', { authorization: `Bearer ${key.key}` })).json().error_code).toBe(
      'auth.revoked_key',
    );
  });

  it('answers 401 for a key without the scope of the surface', async () => {
    const formsOnly = await t.createAccount({ scopes: 'forms' });
    const email = await get('/v1/email/whoami', formsOnly.auth);
    expect(email.statusCode).toBe(401);
    expect(email.json().error_code).toBe('auth.scope');
    expect((await get('/v1/marketing/whoami', formsOnly.auth)).statusCode).toBe(401);
    expect((await get('/v1/forms/api/forms/whoami', formsOnly.auth)).statusCode).toBe(200);
  });

  it("answers 403 for a key used under another account's username", async () => {
    const res = await get('/v1/acme/whoami', other.auth);
    expect(res.statusCode).toBe(403);
    expect(res.json().error_code).toBe('auth.forbidden');
    expect((await get('/v1/acme/whoami', acme.auth)).json()).toEqual({ username: 'acme' });
    expect((await get('/v1/marketing/acme/current_customer', other.auth)).statusCode).toBe(403);
    expect((await get('/v1/marketing/acme/current_customer', acme.auth)).statusCode).toBe(200);
  });

  it('keeps a forms-only key out of the email routes reached through /v1/forms/<op>', async () => {
    const formsOnly = await t.createAccount({ scopes: 'forms' });
    const send = await t.app.inject({
      method: 'POST',
      url: '/v1/forms/messages',
      headers: formsOnly.auth,
      payload: {},
    });
    expect([401, 403]).toContain(send.statusCode);
    for (const url of [
      '/v1/forms/webhook_endpoints',
      '/v1/forms/dynamic_templates',
      '/v1/forms/captured_messages',
      '/v1/FORMS/dynamic_templates',
    ])
      expect([401, 403], url).toContain((await get(url, formsOnly.auth)).statusCode);
  });

  it('answers 401, not 404, for a wrong key on an unknown path or method', async () => {
    expect((await get('/v1/email/no-such-op', { authorization: 'Bearer sp_wrong' })).statusCode).toBe(401);
    const del = await t.app.inject({
      method: 'DELETE',
      url: '/v1/email/messages',
      headers: { authorization: 'Bearer sp_wrong' },
    });
    expect(del.statusCode).toBe(401);
    expect((await get('/v1/nowhere/at/all')).statusCode).toBe(401);
  });

  it('answers 404 with the documented body for an unknown path with a valid key', async () => {
    const res = await get('/v1/email/no-such-op', acme.auth);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({
      error_code: 'not_found',
      errors: [{ code: 404, title: 'Not found' }],
    });
  });

  it('lets the public form read through without a key and ignores a key sent there', async () => {
    expect((await get('/v1/forms/public/form_data/abc/probe')).statusCode).toBe(200);
    const withBadKey = await get('/v1/forms/public/form_data/abc/probe', {
      authorization: 'Bearer sp_wrong',
    });
    expect(withBadKey.statusCode).toBe(200);
    expect(withBadKey.json()).toEqual({ principal: null });
  });

  it('records when a key was last used', async () => {
    const fresh = await t.createAccount({ scopes: 'email' });
    await get('/v1/email/whoami', fresh.auth);
    const row = await t.ctx.database.db
      .selectFrom('api_keys')
      .select('last_used_at')
      .where('id', '=', fresh.keyId)
      .executeTakeFirstOrThrow();
    expect(row.last_used_at).toBeGreaterThan(Date.now() - 60_000);
  });
});
