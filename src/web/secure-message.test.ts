import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { message, postJson, recipientsOf } from '../email/email.test-support.ts';
import { secureTokenHash } from './secure-message.service.ts';

describe('secure message page', () => {
  let t: TestApp;
  let acme: TestAccount;
  const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(3000)]);

  beforeAll(async () => {
    t = await createTestApp();
    acme = await t.createAccount();
  });
  afterAll(() => t.close());

  /** Sends a message through the API and gives its first recipient a secure link token, as delivery would. */
  async function secureMessage(
    extra: Record<string, unknown> = {},
    expiresAt: number | null = Date.now() + 3_600_000,
  ) {
    const res = await postJson(t, '/v1/email/messages', acme.auth, {
      data: {
        message: message(`desk@${acme.domain}`, {
          headers: {
            subject: 'Results <script>alert(1)</script>',
            from: `Clinic Desk <desk@${acme.domain}>`,
          },
          content: {
            'text/plain': 'Your results: <b>fine</b> & well',
            'text/html':
              '<p onclick="x()">Your <b>results</b><script>alert(2)</script><img src="https://tracker.example/p.gif"></p>',
          },
          attachments: [
            { fileName: 'results é.pdf', contentType: 'application/pdf', content: pdf.toString('base64') },
            {
              fileName: 'note.txt',
              contentType: 'text/plain',
              content: Buffer.from('plain note').toString('base64'),
            },
          ],
          ...extra,
        }),
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const id = res.json().sourceTrackingId as string;
    const [recipient] = await recipientsOf(t, id);
    const token = randomBytes(32).toString('base64url');
    await t.ctx.database.db
      .updateTable('message_recipients')
      .set({ secure_token_hash: secureTokenHash(token), secure_expires_at: expiresAt })
      .where('id', '=', recipient!.id)
      .execute();
    return { id, token };
  }

  const get = (url: string) => t.app.inject({ method: 'GET', url });

  it('shows the message with its headers, bodies and attachment links', async () => {
    const { token } = await secureMessage();
    const res = await get(`/s/${token}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('desk@');
    expect(res.body).toContain('rcpt@example.net');
    expect(res.body).toMatch(/\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} \+0000/);
    expect(res.body).toContain('Your results: &lt;b&gt;fine&lt;/b&gt; &amp; well');
    expect(res.body).toContain(`href="${token}/attachments/0"`);
    expect(res.body).toContain('results é.pdf');
    expect(res.body).toContain('note.txt');
  });

  it('shows a subject holding a script tag as text', async () => {
    const { token } = await secureMessage();
    const res = await get(`/s/${token}`);
    expect(res.body).toContain('Results &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(res.body).not.toContain('<script');
  });

  it('puts the HTML body, stripped of scripts and handlers, in a sandboxed frame', async () => {
    const { token } = await secureMessage();
    const body = (await get(`/s/${token}`)).body;
    const srcdoc = /<iframe [^>]*sandbox="[^"]*"[^>]*srcdoc="([^"]*)"/.exec(body)?.[1];
    expect(srcdoc).toBeDefined();
    const inner = srcdoc!
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
    expect(inner).toContain('<b>results</b>');
    expect(inner).not.toMatch(/<script|onclick|alert\(2\)/);
    expect(body).not.toMatch(/allow-scripts|allow-same-origin/);
  });

  it('sends headers that keep the page out of caches, referrers, frames and other origins', async () => {
    const { token } = await secureMessage();
    const res = await get(`/s/${token}`);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/script-src|https?:/);
    // Nothing is loaded from anywhere: the one link names an empty icon, so the browser asks for no favicon.
    expect(res.body).not.toMatch(/<script|<link(?! rel="icon" href="data:,">)|src="https?:/);
  });

  it('serves an attachment as a download with its bytes', async () => {
    const { token } = await secureMessage();
    const res = await get(`/s/${token}/attachments/0`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/octet-stream');
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="results _.pdf"; filename*=UTF-8''results%20%C3%A9.pdf`,
    );
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.rawPayload.equals(pdf)).toBe(true);
    const note = await get(`/s/${token}/attachments/1`);
    expect(note.rawPayload.toString()).toBe('plain note');
  });

  it.each([
    ['page.html', 'text/html'],
    ['image.svg', 'image/svg+xml'],
    ['run.js', 'application/javascript'],
    ['doc.xhtml', 'application/xhtml+xml'],
  ])(
    'serves %s (sent as %s) as a sandboxed download only this origin may load',
    async (fileName, contentType) => {
      const { token } = await secureMessage({
        attachments: [
          { fileName, contentType, content: Buffer.from('<script>alert(1)</script>').toString('base64') },
        ],
      });
      const res = await get(`/s/${token}/attachments/0`);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/octet-stream');
      expect(res.headers['content-disposition']).toMatch(/^attachment; /);
      expect(res.headers['cross-origin-resource-policy']).toBe('same-origin');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain('sandbox');
    },
  );

  it('answers 404 for an attachment index the message does not have', async () => {
    const { token } = await secureMessage();
    for (const index of ['2', '-1', 'x', '01x'])
      expect((await get(`/s/${token}/attachments/${index}`)).statusCode).toBe(404);
  });

  it('answers an unknown or malformed token with a 404 page', async () => {
    for (const url of [
      `/s/${randomBytes(32).toString('base64url')}`,
      '/s/%3Cscript%3E',
      `/s/${randomBytes(32).toString('base64url')}/attachments/0`,
    ]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('Message not found');
      expect(res.body).not.toContain('<script');
    }
  });

  it('answers an expired link with a 410 page, for the page and its attachments', async () => {
    const { token } = await secureMessage({}, Date.now() - 1000);
    const res = await get(`/s/${token}`);
    expect(res.statusCode).toBe(410);
    expect(res.body).toContain('Link expired');
    expect(res.body).not.toContain('Results');
    expect((await get(`/s/${token}/attachments/0`)).statusCode).toBe(410);
  });

  it('answers a message whose content was purged with a 410 page saying it is no longer available', async () => {
    const { id, token } = await secureMessage();
    await t.ctx.database.db
      .updateTable('messages')
      .set({ content: null, content_purged_at: Date.now() })
      .where('id', '=', id)
      .execute();
    const res = await get(`/s/${token}`);
    expect(res.statusCode).toBe(410);
    expect(res.body).toContain('no longer available');
  });

  it("records each of the recipient's reads in the sender's audit trail, and nothing for a refused one", async () => {
    const { id, token } = await secureMessage();
    const expired = await secureMessage({}, Date.now() - 1000);
    const reads = () =>
      t.ctx.database.db
        .selectFrom('audit_log')
        .select(['customer_id', 'actor_type', 'actor_id', 'target', 'ip', 'detail'])
        .where('action', '=', 'secure_message.read')
        .where('target', 'in', [`message:${id}`, `message:${expired.id}`])
        .orderBy('id')
        .execute();
    expect(await reads()).toEqual([]);
    for (const url of [`/s/${token}`, `/s/${token}/attachments/1`, `/s/${token}/attachments/7`])
      await t.app.inject({ method: 'GET', url, remoteAddress: '203.0.113.9' });
    await get(`/s/${expired.token}`);
    await get(`/s/${expired.token}/attachments/0`);
    const rows = await reads();
    expect(rows.map((r) => JSON.parse(r.detail).part)).toEqual(['page', 'attachment 1']);
    for (const r of rows)
      expect(r).toMatchObject({
        customer_id: acme.account.customer_id,
        actor_type: 'recipient',
        actor_id: 'rcpt@example.net',
        target: `message:${id}`,
        ip: '203.0.113.9',
      });
  });

  it('shows a text-only message in a preformatted block and no frame', async () => {
    const { token } = await secureMessage({
      content: { 'text/plain': 'line one\nline two' },
      attachments: [],
    });
    const res = await get(`/s/${token}`);
    expect(res.body).toContain('<pre>line one\nline two</pre>');
    expect(res.body).not.toContain('<iframe');
    expect(res.body).not.toContain('Attachments');
  });
});
