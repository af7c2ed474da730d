/** The console over HTTP (inject): sign-in and its redirects, sessions, CSRF, roles refused by the server, headers. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { createTestUser, mergeCookies, signInClient, TEST_PASSWORD } from './console.test-support.ts';

let t: TestApp;
let a: TestAccount;

beforeAll(async () => {
  t = await createTestApp({ config: { consoleIdleTimeoutSeconds: 1 } });
  a = await t.createAccount();
});
afterAll(async () => t?.close());

async function signInForm(): Promise<{ cookie: string; token: string }> {
  const res = await t.app.inject({ method: 'GET', url: '/console/sign-in?next=%2Fconsole%2Fsettings' });
  return {
    cookie: mergeCookies('', res.headers['set-cookie']),
    token: /name="_csrf" value="([^"]+)"/.exec(res.body)![1]!,
  };
}

function postForm(url: string, cookie: string, form: Record<string, string>) {
  return t.app.inject({
    method: 'POST',
    url,
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(form).toString(),
  });
}

describe('console sign-in', () => {
  it('leads the bare address to the console', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/console');
  });

  it('sends an unsigned request for a console page to the sign-in page with the page as next', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/console/domains?x=1' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/console/sign-in?next=%2Fconsole%2Fdomains%3Fx%3D1');
  });

  it('signs in and returns to the page asked for, with a HttpOnly SameSite session cookie', async () => {
    const owner = await createTestUser(t, a.account.customer_id, 'owner');
    const { cookie, token } = await signInForm();
    const res = await postForm('/console/sign-in', cookie, {
      _csrf: token,
      email: owner.email,
      password: TEST_PASSWORD,
      next: '/console/settings',
    });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/console/settings');
    const session = [res.headers['set-cookie']].flat().find((c) => c!.startsWith('sealpost_console='))!;
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/SameSite=Lax/);
    const page = await t.app.inject({
      method: 'GET',
      url: '/console/settings',
      headers: { cookie: mergeCookies(cookie, res.headers['set-cookie']) },
    });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>Settings</h1>');
    // This installation captures mail (the default transport), and every page says so.
    expect(page.body).toContain('<strong>Capture mode:</strong> mail is kept in');
  });

  it('refuses a wrong password with the sign-in page again and records the failure', async () => {
    const owner = await createTestUser(t, a.account.customer_id, 'owner');
    const { cookie, token } = await signInForm();
    const res = await postForm('/console/sign-in', cookie, {
      _csrf: token,
      email: owner.email,
      password: 'wrong password!',
      next: '/console',
    });
    expect(res.statusCode).toBe(401);
    expect(res.body).toContain('The email address or password is not right.');
    const rows = await t.ctx.database.db
      .selectFrom('audit_log')
      .selectAll()
      .where('target', '=', `user:${owner.id}`)
      .where('action', '=', 'sign_in.failure')
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('never follows a next target outside the console', async () => {
    const owner = await createTestUser(t, a.account.customer_id, 'owner');
    const { cookie, token } = await signInForm();
    const res = await postForm('/console/sign-in', cookie, {
      _csrf: token,
      email: owner.email,
      password: TEST_PASSWORD,
      next: '//evil.example/console',
    });
    expect(res.headers.location).toBe('/console');
  });
});

describe('console sessions and forms', () => {
  it('refuses a sign-out post without the form token or with a wrong one, and the session stays', async () => {
    const owner = await createTestUser(t, a.account.customer_id, 'owner');
    const c = await signInClient(t.app, owner.email);
    expect((await c.post('/console/sign-out', {})).statusCode).toBe(403);
    expect((await c.post('/console/sign-out', { _csrf: 'x'.repeat(c.csrf.length) })).statusCode).toBe(403);
    expect((await c.get('/console')).statusCode).toBe(200);
    const out = await c.post('/console/sign-out', { _csrf: c.csrf });
    expect(out.headers.location).toBe('/console/sign-in?signed_out');
    expect((await c.get('/console')).statusCode).toBe(303);
  });

  it('ends a session idle for longer than the idle timeout', async () => {
    const owner = await createTestUser(t, a.account.customer_id, 'viewer');
    const c = await signInClient(t.app, owner.email);
    await new Promise((r) => setTimeout(r, 1100));
    const res = await c.get('/console/settings');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/console/sign-in?next=%2Fconsole%2Fsettings');
  });

  it('answers every navigation entry with a page, under a strict Content-Security-Policy', async () => {
    const owner = await createTestUser(t, a.account.customer_id, 'owner');
    const c = await signInClient(t.app, owner.email);
    for (const path of [
      '/console',
      '/console/domains',
      '/console/keys',
      '/console/webhooks',
      '/console/messages',
      '/console/captured',
      '/console/templates',
      '/console/forms',
      '/console/audiences',
      '/console/campaigns',
      '/console/settings',
    ]) {
      const res = await c.get(path);
      expect(res.statusCode, path).toBe(200);
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.body).not.toMatch(/<script>|<style|style="/);
    }
  });

  it('serves its stylesheet and script itself and answers an unknown console path with an HTML 404', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/console/sign-in' });
    const css = /href="(\/console\/assets\/console\.css\?v=\w+)"/.exec(page.body)![1]!;
    const res = await t.app.inject({ method: 'GET', url: css });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/css; charset=utf-8');
    const missing = await t.app.inject({ method: 'GET', url: '/console/no/such/page' });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toMatch(/text\/html/);
  });
});
