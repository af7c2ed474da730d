import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { startTestWorker } from '../test/worker.ts';
import { waitFor } from '../test/wait.ts';
import type { Worker } from '../jobs/worker.ts';
import { kindQueues } from '../delivery/delivery.worker.ts';
import { transactionalKind } from '../email/mail-kind.ts';
import { recipientsOf } from '../email/email.test-support.ts';
import { tokenUrls } from '../mail/tokens.ts';
import { secureTokenHash } from '../web/secure-message.service.ts';
import { createForm } from '../forms/forms.test-support.ts';
import { createUser } from '../users/users.service.ts';
import { mergeCookies, signInClient } from '../console/console.test-support.ts';
import { loggableUrl } from './log-redaction.ts';

/**
 * One flow through every door a secret or an address passes, with the log at debug level captured: afterwards the log
 * holds none of them. Each step is one entry of FLOW (send, secure page, click, unsubscribe, form submit, console
 * sign-in and sign-out); a new door with a credential is one more step that pushes what it must not leak into `secrets`.
 */
describe('the log of a full flow', () => {
  let t: TestApp;
  let a: TestAccount;
  let worker: Worker;
  const lines: string[] = [];
  const secrets: string[] = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    t = await createTestApp({ log: pino({ level: 'debug' }, sink) });
    a = await t.createAccount();
    worker = startTestWorker(t, {}, (ctx) => kindQueues(ctx, [transactionalKind(ctx)]));
    secrets.push(a.key);
  });
  afterAll(async () => {
    await worker?.stop();
    await t?.close();
  });

  const get = (url: string) => t.app.inject({ method: 'GET', url });

  const FLOW: Record<string, () => Promise<void>> = {
    async send() {
      const patient = `patient.${randomBytes(3).toString('hex')}@example.org`;
      const subject = `Results ${randomBytes(4).toString('hex')}`;
      const body = `Hemoglobin ${randomBytes(4).toString('hex')}`;
      const link = `https://portal.example/case/${randomBytes(4).toString('hex')}`;
      secrets.push(patient, subject, body, link);
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/email/messages',
        headers: a.auth,
        payload: {
          data: {
            message: {
              recipients: [patient],
              headers: { from: `desk@${a.domain}`, subject, 'X-Patient-Ref': 'MRN-31337' },
              content: { 'text/plain': body, 'text/html': `<p>${body} <a href="${link}">portal</a></p>` },
            },
          },
        },
      });
      expect(res.statusCode).toBe(200);
      secrets.push('MRN-31337');
      const id = res.json().sourceTrackingId as string;
      await waitFor(async () => (await recipientsOf(t, id)).every((r) => r.status === 'delivered'), 10_000);
      const [recipient] = await recipientsOf(t, id);
      // A malformed address, a receipt query and an address in a query string reach the log as errors and URLs.
      const invalid = `not-an-address-${randomBytes(3).toString('hex')}@@example.org`;
      secrets.push(invalid);
      await t.app.inject({
        method: 'POST',
        url: '/v1/email/messages',
        headers: a.auth,
        payload: {
          data: {
            message: {
              recipients: [invalid],
              headers: { from: `desk@${a.domain}`, subject },
              content: { 'text/plain': 'x' },
            },
          },
        },
      });
      await t.app.inject({
        method: 'GET',
        url: `/v1/marketing/subscribers?email=${encodeURIComponent(patient)}`,
        headers: a.auth,
      });

      // secure page
      const token = randomBytes(32).toString('base64url');
      secrets.push(token);
      await t.ctx.database.db
        .updateTable('message_recipients')
        .set({ secure_token_hash: secureTokenHash(token), secure_expires_at: Date.now() + 3_600_000 })
        .where('id', '=', recipient!.id)
        .execute();
      expect((await get(`/s/${token}`)).statusCode).toBe(200);

      // click and open
      const click = new URL(
        tokenUrls.transactional.click(t.ctx.publicUrl, t.ctx.keys.tracking, recipient!.id, 0),
      ).pathname;
      const open = new URL(tokenUrls.transactional.open(t.ctx.publicUrl, t.ctx.keys.tracking, recipient!.id))
        .pathname;
      secrets.push(
        click
          .split('/')
          .pop()!
          .replace(/\.gif$/, ''),
        open
          .split('/')
          .pop()!
          .replace(/\.gif$/, ''),
      );
      expect((await get(click)).statusCode).toBe(302);
      expect((await get(open)).statusCode).toBe(200);
    },

    async unsubscribe() {
      const token = randomBytes(40).toString('base64url');
      secrets.push(token);
      await get(`/u/${token}`);
      await t.app.inject({
        method: 'POST',
        url: `/u/${token}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: '',
      });
    },

    async formSubmit() {
      const formId = await createForm(t.app, a.auth);
      const name = `Ada ${randomBytes(3).toString('hex')}`;
      const email = `ada.${randomBytes(3).toString('hex')}@example.org`;
      secrets.push(name, email);
      const json = await t.app.inject({
        method: 'POST',
        url: `/v1/forms/api/forms/${formId}/submissions`,
        payload: { form_data: { name, email, topic: 'appt', message: 'Hello', consent: true } },
      });
      expect(json.statusCode).toBe(201);
      const hosted = await t.app.inject({
        method: 'POST',
        url: `/f/${formId}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ name, email, topic: 'appt', consent: 'on' }).toString(),
      });
      expect(hosted.statusCode).toBeLessThan(500);
    },

    async consoleSignIn() {
      const email = `desk.${randomBytes(3).toString('hex')}@clinic.example.org`;
      const password = `pw-${randomBytes(12).toString('hex')}`;
      const wrong = `pw-${randomBytes(12).toString('hex')}`;
      secrets.push(email, password, wrong);
      await createUser(
        t.ctx.database.db,
        { customerId: a.account.customer_id, email, role: 'owner', password },
        { type: 'system', id: 'test' },
      );
      // A failed attempt first: the wrong password and the address reach the sign-in route too.
      const form = await get('/console/sign-in');
      const jar = mergeCookies('', form.headers['set-cookie']);
      const formCsrf = /name="_csrf" value="([^"]+)"/.exec(form.body)![1]!;
      const failed = await t.app.inject({
        method: 'POST',
        url: `/console/sign-in?email=${encodeURIComponent(email)}`,
        headers: { cookie: jar, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          _csrf: formCsrf,
          email,
          password: wrong,
          next: '/console',
        }).toString(),
      });
      expect(failed.statusCode).toBeLessThan(500);
      expect(failed.statusCode).not.toBe(303);

      const client = await signInClient(t.app, email, password);
      // Every cookie value (the session and the CSRF cookie) and the form's CSRF token.
      for (const pair of client.cookie.split('; ')) secrets.push(pair.slice(pair.indexOf('=') + 1));
      secrets.push(formCsrf, client.csrf);
      expect((await client.get('/console')).statusCode).toBe(200);
      expect((await client.get(`/console/messages?search=${encodeURIComponent(email)}`)).statusCode).toBe(
        200,
      );
      const out = await client.post('/console/sign-out', { _csrf: client.csrf });
      expect(out.statusCode).toBe(303);
      // The cookie of the ended session is refused, and refused without leaking it.
      expect((await client.get('/console')).statusCode).toBe(303);
    },
  };

  it('holds no key, token, address, header value or content', async () => {
    for (const step of Object.values(FLOW)) await step();
    const log = lines.join('');
    expect(log).toContain('incoming request');
    expect(log).toContain('/console/sign-in');
    expect(log).toContain('/console/sign-out');
    for (const secret of secrets) expect(log, `the log shows ${secret}`).not.toContain(secret);
    expect(log).not.toContain(encodeURIComponent(secrets[1]!));
  });
});

describe('loggableUrl', () => {
  it('fills in route parameters except secrets and addresses, and drops the query string', () => {
    expect(loggableUrl('/s/abc?x=1', '/s/:token', { token: 'abc' })).toBe('/s/[redacted]?[redacted]');
    expect(loggableUrl('/f/123', '/f/:id', { id: '123' })).toBe('/f/123');
    expect(loggableUrl('/v1/m/a%40b.org', '/v1/m/:id', { id: 'a@b.org' })).toBe('/v1/m/[redacted]');
    expect(loggableUrl('/nowhere/a%40b.org/x')).toBe('/nowhere/[redacted]/x');
  });
});
