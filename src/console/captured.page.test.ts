/** Captured mail over HTTP: the list, a message's parts, its HTML under a frame policy without script or remote loads, the permission and the audit entry. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import type { Worker } from '../jobs/worker.ts';
import { sendMessage, startDeliveryWorker, waitUntilFinished } from '../delivery/delivery.test-support.ts';
import { createTestUser, signInClient, type ConsoleClient } from './console.test-support.ts';

let t: TestApp;
let a: TestAccount;
let owner: ConsoleClient;
let viewer: ConsoleClient;
let capturedId: number;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.createAccount();
  const worker: Worker = startDeliveryWorker(t);
  const id = await sendMessage(t, a, {
    headers: { subject: 'Scan results', from: `desk@${a.domain}` },
    content: {
      'text/plain': 'Your scan is clear.',
      'text/html':
        '<p>Your scan is <b>clear</b>.</p><script>alert(1)</script><img src="https://tracker.example/x.gif">',
    },
    attachments: [
      {
        fileName: 'scan.txt',
        contentType: 'text/plain',
        content: Buffer.from('scan data').toString('base64'),
      },
    ],
  });
  await waitUntilFinished(t, id);
  await worker.stop();
  capturedId = (
    await t.ctx.database.db.selectFrom('captured_messages').select('id').executeTakeFirstOrThrow()
  ).id;
  owner = await signInClient(t.app, (await createTestUser(t, a.account.customer_id, 'owner')).email);
  viewer = await signInClient(t.app, (await createTestUser(t, a.account.customer_id, 'viewer')).email);
});
afterAll(async () => t?.close());

describe('captured mail', () => {
  it('lists captured messages, with a link to open them only for readers of protected content', async () => {
    expect((await owner.get('/console/captured')).body).toContain(`href="/console/captured/${capturedId}"`);
    const v = await viewer.get('/console/captured');
    expect(v.body).toContain('content hidden');
    expect(v.body).not.toContain(`href="/console/captured/${capturedId}"`);
  });

  it('shows subject, text, headers, raw source and attachments, and records the view', async () => {
    const res = await owner.get(`/console/captured/${capturedId}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Scan results');
    expect(res.body).toContain('Your scan is clear.');
    expect(res.body).toContain('MIME-Version');
    expect(res.body).toContain('scan.txt');
    expect(res.body).toMatch(/<iframe[^>]+sandbox=""/);
    const att = await owner.get(`/console/captured/${capturedId}/attachments/0`);
    expect(att.body).toBe('scan data');
    expect(att.headers['content-disposition']).toContain('attachment');
    const rows = await t.ctx.database.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'captured.content_read')
      .execute();
    // The page and the attachment are two reads, each recorded.
    expect(rows).toHaveLength(2);
  });

  it('serves the HTML under a policy that forbids script and remote loads', async () => {
    const res = await owner.get(`/console/captured/${capturedId}/html`);
    expect(res.statusCode).toBe(200);
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toMatch(/script-src/);
    expect(csp).toContain('img-src data: cid:');
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
  });

  it("refuses a viewer on the server and answers another account's message as not found", async () => {
    for (const p of ['', '/html', '/attachments/0'])
      expect((await viewer.get(`/console/captured/${capturedId}${p}`)).statusCode, p).toBe(403);
    const b = await t.createAccount();
    const stranger = await signInClient(
      t.app,
      (await createTestUser(t, b.account.customer_id, 'owner')).email,
    );
    expect((await stranger.get(`/console/captured/${capturedId}`)).statusCode).toBe(404);
  });
});
