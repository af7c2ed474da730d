/** `sealpost user ...` in a child process: create with a password from stdin, create with a set-password link, list, disable, reset. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { runSealpost } from './cli.test-support.ts';
import { signInClient } from '../console/console.test-support.ts';

let t: TestApp;
let a: TestAccount;
const run = (args: string[], stdin?: string) =>
  runSealpost(t.scratch.url, t.ctx.config.masterKey!, args, stdin);

beforeAll(async () => {
  t = await createTestApp();
  a = await t.createAccount();
});
afterAll(async () => t?.close());

describe('sealpost user', () => {
  it('creates an owner whose password came on stdin, who can then sign in to the console', async () => {
    const res = await run(
      [
        'user',
        'create',
        '--account',
        a.account.username,
        '--email',
        'Owner@Example.com',
        '--role',
        'owner',
        '--password-stdin',
      ],
      'a long enough password',
    );
    expect(res.stderr).toBe('');
    expect(res.stdout).toContain('created owner owner@example.com');
    const c = await signInClient(t.app, 'owner@example.com', 'a long enough password');
    expect((await c.get('/console')).body).toContain('owner@example.com');
  });

  it('prints a one-time link that sets the password once', async () => {
    const res = await run([
      'user',
      'create',
      '--account',
      a.account.username,
      '--email',
      'ed@example.com',
      '--role',
      'editor',
    ]);
    const url = new URL(/https?:\S+/.exec(res.stdout)![0]);
    const token = url.searchParams.get('token')!;
    const form = await t.app.inject({ method: 'GET', url: `${url.pathname}${url.search}` });
    expect(form.body).toContain('Choose a password for <strong>ed@example.com</strong>');
    const set = () =>
      t.app.inject({
        method: 'POST',
        url: '/console/set-password',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          token,
          password: 'editor password 1',
          confirm: 'editor password 1',
        }).toString(),
      });
    // The form answers with a redirect to the sign-in page; the spent link is refused.
    const first = await set();
    expect(first.statusCode).toBe(303);
    expect(first.headers.location).toBe('/console/sign-in?password_set');
    expect((await set()).statusCode).toBe(400);
    await signInClient(t.app, 'ed@example.com', 'editor password 1');
  });

  it('refuses an unknown role and changes nothing', async () => {
    const res = await run(
      [
        'user',
        'create',
        '--account',
        a.account.username,
        '--email',
        'x@example.com',
        '--role',
        'boss',
        '--password-stdin',
      ],
      'a long enough password',
    );
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('role must be one of owner, admin, editor, viewer');
    expect((await run(['user', 'list', '--json'])).stdout).not.toContain('x@example.com');
  });

  it('lists, disables (ending sessions) and prints a reset link', async () => {
    await run(
      [
        'user',
        'create',
        '--account',
        a.account.username,
        '--email',
        'v@example.com',
        '--role',
        'viewer',
        '--password-stdin',
      ],
      'viewer password 1',
    );
    const c = await signInClient(t.app, 'v@example.com', 'viewer password 1');
    const list = JSON.parse(
      (await run(['user', 'list', '--account', a.account.username, '--json'])).stdout,
    ) as { email: string }[];
    expect(list.map((u) => u.email)).toContain('v@example.com');
    expect((await run(['user', 'reset', '--email', 'v@example.com'])).stdout).toContain(
      '/console/set-password?token=',
    );
    expect((await run(['user', 'disable', '--email', 'v@example.com'])).code).toBe(0);
    expect((await c.get('/console')).statusCode).toBe(303);
  });
});

describe('command-line changes in the audit trail', () => {
  it('records key creation and revocation with the command line as the actor', async () => {
    const created = JSON.parse(
      (await run(['key', 'create', '--account', a.account.username, '--scopes', 'email', '--json'])).stdout,
    ) as {
      id: string;
    };
    await run(['key', 'revoke', created.id]);
    const rows = await t.ctx.database.db
      .selectFrom('audit_log')
      .selectAll()
      .where('target', '=', `key:${created.id}`)
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.action, r.actor_type, r.actor_id, Number(r.customer_id)])).toEqual([
      ['key.create', 'system', 'cli', a.account.customer_id],
      ['key.revoke', 'system', 'cli', a.account.customer_id],
    ]);
  });

  it('records domain and webhook changes made from the command line, through the same services', async () => {
    const domain = JSON.parse(
      (
        await run([
          'domain',
          'add',
          '--account',
          a.account.username,
          '--domain',
          'cli-audit.example',
          '--json',
        ])
      ).stdout,
    ) as { id: string };
    const hook = JSON.parse(
      (
        await run([
          'webhook',
          'add',
          '--account',
          a.account.username,
          '--url',
          'https://93.184.215.14/in',
          '--events',
          'api_mail_log_delivered',
          '--json',
        ])
      ).stdout,
    ) as { id: string; signing_key: string };
    await run(['webhook', 'remove', hook.id]);
    const rows = await t.ctx.database.db
      .selectFrom('audit_log')
      .selectAll()
      .where('target', 'in', [`domain:${domain.id}`, `webhook:${hook.id}`])
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.action, r.actor_type, r.actor_id, Number(r.customer_id)])).toEqual([
      ['domain.add', 'system', 'cli', a.account.customer_id],
      ['webhook.create', 'system', 'cli', a.account.customer_id],
      ['webhook.delete', 'system', 'cli', a.account.customer_id],
    ]);
    expect(JSON.stringify(rows)).not.toContain(hook.signing_key);
  });
});
