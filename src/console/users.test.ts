/** Owners manage users in the console: invitations by email, roles, protected content, disabling; the server refuses others. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { startDeliveryWorker } from '../delivery/delivery.test-support.ts';
import { capturedOfAccount } from '../email/captured.service.ts';
import { simpleParser } from 'mailparser';
import { waitFor } from '../test/wait.ts';
import type { Worker } from '../jobs/worker.ts';
import { getUserByEmail } from '../users/users.service.ts';
import { requestPasswordReset } from '../users/members.service.ts';
import { createTestUser, signInClient, type ConsoleClient } from './console.test-support.ts';

let t: TestApp;
let a: TestAccount;
let worker: Worker;
let owner: ConsoleClient;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.createAccount();
  worker = startDeliveryWorker(t);
  const o = await createTestUser(t, a.account.customer_id, 'owner');
  owner = await signInClient(t.app, o.email);
});
afterAll(async () => {
  await worker?.stop();
  await t?.close();
});

/** The set-password link in the newest captured mail to `to`. */
async function linkMailedTo(to: string): Promise<{ path: string; from: string }> {
  const mail = await waitFor(
    async () => (await capturedOfAccount(t.ctx, a.account.customer_id)).find((m) => m.recipient === to),
    10_000,
  );
  const parsed = await simpleParser(mail.raw!);
  const url = /https?:\/\/\S+\/console\/set-password\?token=[\w-]+/.exec(parsed.text ?? '')![0];
  return { path: url.slice(url.indexOf('/console')), from: parsed.from?.text ?? '' };
}

describe('users page', () => {
  it('invites by email from the account domain; the link sets a password once and the invitee signs in', async () => {
    const res = await owner.post('/console/settings/users/invite', {
      _csrf: owner.csrf,
      email: 'nurse@example.org',
      role: 'editor',
      protected: 'yes',
    });
    expect(res.statusCode).toBe(303);
    expect((await owner.get('/console/settings/users')).body).toContain(
      'Invitation sent to nurse@example.org.',
    );
    const mail = await linkMailedTo('nurse@example.org');
    expect(mail.from).toBe(`"Sealpost" <no-reply@${a.domain}>`);
    const token = new URL(mail.path, 'http://x').searchParams.get('token')!;
    const set = await t.app.inject({
      method: 'POST',
      url: '/console/set-password',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        token,
        password: 'nurse password 1',
        confirm: 'nurse password 1',
      }).toString(),
    });
    expect(set.statusCode).toBe(303);
    expect(set.headers.location).toBe('/console/sign-in?password_set');
    expect((await t.app.inject({ method: 'GET', url: set.headers.location })).body).toContain(
      'Your password is set',
    );
    const nurse = await signInClient(t.app, 'nurse@example.org', 'nurse password 1');
    expect((await nurse.get('/console')).body).toContain('editor of the account');
    const user = await getUserByEmail(t.ctx.database.db, 'nurse@example.org');
    expect(user.canReadProtected).toBe(true);
  });

  it('changes a role and revokes protected content, each in the audit trail', async () => {
    const ed = await createTestUser(t, a.account.customer_id, 'editor', { canReadProtected: true });
    await owner.post(`/console/settings/users/${ed.id}/role`, { _csrf: owner.csrf, role: 'admin' });
    await owner.post(`/console/settings/users/${ed.id}/protected`, { _csrf: owner.csrf, granted: 'no' });
    const after = await getUserByEmail(t.ctx.database.db, ed.email);
    expect(after).toMatchObject({ role: 'admin', canReadProtected: false });
    const audit = await owner.get('/console/settings/audit?action=user.role_change');
    expect(audit.body).toContain(`user ${ed.email}`);
  });

  it('keeps the last owner: disabling the only owner is refused with a reason and changes nothing', async () => {
    const b = await t.createAccount();
    const only = await createTestUser(t, b.account.customer_id, 'owner');
    const c = await signInClient(t.app, only.email);
    const admin = await createTestUser(t, b.account.customer_id, 'admin');
    await c.post(`/console/settings/users/${admin.id}/role`, { _csrf: c.csrf, role: 'viewer' });
    const res = await c.post(`/console/settings/users/${only.id}/role`, { _csrf: c.csrf, role: 'admin' });
    expect(res.statusCode).toBe(303);
    expect((await c.get('/console/settings/users')).body).toContain(
      'This is the last enabled owner of the account',
    );
    expect((await getUserByEmail(t.ctx.database.db, only.email)).role).toBe('owner');
  });

  it('refuses a viewer and an admin on the server, whatever the page showed, and changes nothing', async () => {
    const target = await createTestUser(t, a.account.customer_id, 'editor');
    for (const role of ['viewer', 'admin']) {
      const u = await createTestUser(t, a.account.customer_id, role);
      const c = await signInClient(t.app, u.email);
      expect((await c.get('/console/settings/users')).statusCode).toBe(403);
      const res = await c.post(`/console/settings/users/${target.id}/disable`, { _csrf: c.csrf });
      expect(res.statusCode).toBe(403);
      expect(res.body).toContain('Your role does not allow this');
    }
    expect((await getUserByEmail(t.ctx.database.db, target.email)).disabled).toBe(false);
  });

  it('cannot reach a user of another account', async () => {
    const b = await t.createAccount();
    const stranger = await createTestUser(t, b.account.customer_id, 'viewer');
    await owner.post(`/console/settings/users/${stranger.id}/disable`, { _csrf: owner.csrf });
    expect((await getUserByEmail(t.ctx.database.db, stranger.email)).disabled).toBe(false);
  });

  it('mails a reset link on "forgot password" and answers the same for an unknown address', async () => {
    const u = await createTestUser(t, a.account.customer_id, 'viewer', { email: 'forgetful@example.org' });
    const ask = async (email: string) => {
      const form = await t.app.inject({ method: 'GET', url: '/console/forgot-password' });
      const cookie = [form.headers['set-cookie']].flat()[0]!.split(';')[0]!;
      const token = /name="_csrf" value="([^"]+)"/.exec(form.body)![1]!;
      return t.app.inject({
        method: 'POST',
        url: '/console/forgot-password',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ _csrf: token, email }).toString(),
      });
    };
    const known = await ask(u.email);
    const unknown = await ask('nobody@example.org');
    expect(known.statusCode).toBe(303);
    expect(known.headers.location).toBe('/console/forgot-password?sent');
    expect(unknown.headers.location).toBe(known.headers.location);
    expect(known.body).toBe(unknown.body);
    const sent = await t.app.inject({ method: 'GET', url: '/console/forgot-password?sent' });
    expect(sent.body).toContain('a link to choose a new password is on its way');
    expect((await linkMailedTo('forgetful@example.org')).path).toMatch(/^\/console\/set-password\?token=/);
  });

  it('answers "forgot password" before it looks the address up, running the same steps for a known and an unknown one', async () => {
    const u = await createTestUser(t, a.account.customer_id, 'viewer', { email: 'later@example.org' });
    const db = t.ctx.database.db;
    const traces = async () => ({
      links: (await db.selectFrom('user_tokens').select('id').where('user_id', '=', u.id).execute()).length,
      audit: (
        await db.selectFrom('audit_log').select('id').where('action', '=', 'user.reset_request').execute()
      ).length,
    });
    const before = await traces();
    const known = await requestPasswordReset(t.ctx, u.email, '198.51.100.40');
    const unknown = await requestPasswordReset(t.ctx, 'nobody-else@example.org', '198.51.100.41');
    expect(await traces()).toEqual(before);
    await unknown();
    expect(await traces()).toEqual(before);
    await known();
    expect(await traces()).toEqual({ links: before.links + 1, audit: before.audit + 1 });
  });

  it('exports the audit trail as CSV and records the export', async () => {
    const res = await owner.get('/console/settings/audit/export.csv');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.body.split('\r\n')[0]).toBe(
      '"id","at","actor_type","actor_id","action","target","ip","detail"',
    );
    expect(res.body).toContain('"user.invite"');
    expect((await owner.get('/console/settings/audit?action=audit.export')).body).toContain('audit.export');
  });
});
