/** The API keys page over HTTP: a key shown once and never again, usable at once, revoked after confirmation, roles refused by the server. */
import { describe, expect, it } from 'vitest';
import { consoleTestBed } from './console.test-support.ts';

const {
  t,
  a,
  clients: [owner, viewer],
} = consoleTestBed(['owner', 'viewer']);

describe('API keys page', () => {
  it('shows a new key once with a warning, lists it with its creator, and never shows the value again', async () => {
    const res = await owner.post('/console/keys', {
      _csrf: owner.csrf,
      description: 'booking system',
      scopes: 'email',
    });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toMatch(/^\/console\/keys\/new\/[\w-]{32}$/);
    const shown = await owner.get(res.headers.location as string);
    expect(shown.headers['cache-control']).toBe('no-store');
    const value = /id="new-key" class="mono">(sp_[\w-]+)</.exec(shown.body)![1]!;
    expect(shown.body).toContain('shown only this once');
    const api = await t.app.inject({
      method: 'GET',
      url: '/v1/email/dynamic_templates',
      headers: { authorization: `Bearer ${value}` },
    });
    expect(api.statusCode).not.toBe(401);
    const list = await owner.get('/console/keys');
    expect(list.body).toContain('booking system');
    expect(list.body).toContain(value.slice(0, 10));
    expect(list.body).not.toContain(value);
    expect(list.body).toMatch(/owner-\w+@example\.com/);
    const audit = await t.ctx.database.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'key.create')
      .where('actor_type', '=', 'user')
      .execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]!.detail).not.toContain(value);
  });

  it('refuses a key without scope or description and creates nothing', async () => {
    const before = await t.ctx.database.db.selectFrom('api_keys').select('id').execute();
    const res = await owner.post('/console/keys', { _csrf: owner.csrf, description: 'x' });
    expect(res.statusCode).toBe(303);
    expect((await owner.get('/console/keys')).body).toMatch(/give at least one scope/i);
    await owner.post('/console/keys', { _csrf: owner.csrf, description: '', scopes: 'email' });
    expect(await t.ctx.database.db.selectFrom('api_keys').select('id').execute()).toHaveLength(before.length);
  });

  it('revokes after the confirmation page, and the key stops working', async () => {
    const page = await owner.get(`/console/keys/${a.keyId}/revoke`);
    expect(page.body).toContain('cannot be undone');
    const res = await owner.post(`/console/keys/${a.keyId}/revoke`, { _csrf: owner.csrf });
    expect(res.headers.location).toBe('/console/keys');
    const api = await t.app.inject({ method: 'GET', url: '/v1/email/dynamic_templates', headers: a.auth });
    expect(api.statusCode).toBe(401);
    expect((await owner.get('/console/keys')).body).toContain('Revoked');
  });

  it('refuses a viewer on the server: no create, no revoke, no confirmation page, and no form shown', async () => {
    const other = await t.createAccount();
    expect(
      (await viewer.post('/console/keys', { _csrf: viewer.csrf, description: 'v', scopes: 'email' }))
        .statusCode,
    ).toBe(403);
    expect(
      (await viewer.post(`/console/keys/${other.keyId}/revoke`, { _csrf: viewer.csrf })).statusCode,
    ).toBe(403);
    expect((await viewer.get(`/console/keys/${other.keyId}/revoke`)).statusCode).toBe(403);
    const list = await viewer.get('/console/keys');
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain('Create key');
  });

  it("refuses to revoke another account's key and without the form token", async () => {
    const other = await t.createAccount();
    await owner.post(`/console/keys/${other.keyId}/revoke`, { _csrf: owner.csrf });
    expect(
      (await t.app.inject({ method: 'GET', url: '/v1/email/dynamic_templates', headers: other.auth }))
        .statusCode,
    ).toBe(200);
    expect((await owner.post('/console/keys', { description: 'x', scopes: 'email' })).statusCode).toBe(403);
  });

  it('answers a form its schema refuses with an error on the form page, and creates no key', async () => {
    const keys = () => t.ctx.database.db.selectFrom('api_keys').select('id').execute();
    const before = (await keys()).length;
    const res = await t.app.inject({
      method: 'POST',
      url: '/console/keys',
      headers: { cookie: owner.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `_csrf=${encodeURIComponent(owner.csrf)}&description=one&description=two&scopes=email`,
    });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/console/keys');
    const page = await owner.get('/console/keys');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(
      '<div class="flash flash-error" role="alert">Description must be string.</div>',
    );
    expect((await keys()).length).toBe(before);
  });
});
