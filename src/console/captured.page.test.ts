/** Captured mail over HTTP: the list, a message's parts, its HTML under a frame policy without script or remote loads, the permission and the audit entry. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import type { Worker } from '../jobs/worker.ts';
import { sendMessage, startDeliveryWorker, waitUntilFinished } from '../delivery/delivery.test-support.ts';
import { createTestUser, signInClient, type ConsoleClient } from './console.test-support.ts';
import { sendCapturedCampaign } from './captured.test-support.ts';

let t: TestApp;
let a: TestAccount;
let owner: ConsoleClient;
let viewer: ConsoleClient;
let capturedId: number;
let campaign: { mailing: string; copy: string };

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
  campaign = await sendCapturedCampaign(t, a, 'Flu shots this week');
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

  it('lists campaign copies beside transactional ones with their kind and mailing, and filters by kind', async () => {
    const all = (await owner.get('/console/captured')).body;
    expect(all).toContain(`href="/console/captured/${capturedId}"`);
    expect(all).toContain(`href="/console/captured/${campaign.copy}"`);
    expect(all).toContain(
      `<a href="/console/campaigns/mailings/${campaign.mailing}" class="">Flu shots this week</a>`,
    );
    expect(all).toMatch(/<td data-label="Kind">campaign<\/td>/);
    expect(all).toMatch(/<td data-label="Kind">transactional<\/td>/);
    const campaigns = (await owner.get('/console/captured?kind=campaign')).body;
    expect(campaigns).toContain(campaign.copy);
    expect(campaigns).not.toContain(`href="/console/captured/${capturedId}"`);
    const drips = (await owner.get('/console/captured?kind=drip')).body;
    expect(drips).toContain('Nothing captured yet.');
    const tx = (await owner.get('/console/captured?kind=transactional')).body;
    expect(tx).not.toContain(campaign.copy);
    expect(tx).toContain(`href="/console/captured/${capturedId}"`);
  });

  it('opens a campaign copy for readers of protected content only, and records each read', async () => {
    for (const p of ['', '/html'])
      expect((await viewer.get(`/console/captured/${campaign.copy}${p}`)).statusCode, p).toBe(403);
    const audit = () =>
      t.ctx.database.db
        .selectFrom('audit_log')
        .select('detail')
        .where('action', '=', 'captured.content_read')
        .where('target', '=', `marketing_delivery:${campaign.copy}`)
        .execute();
    expect(await audit()).toHaveLength(0);
    const res = await owner.get(`/console/captured/${campaign.copy}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Flu shots this week');
    expect(res.body).toContain('Flu shots are in. Book a slot.');
    expect(res.body).toContain('hal@patients.example');
    const rows = await audit();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.detail).toContain('"kind":"campaign"');
    const b = await t.createAccount();
    const stranger = await signInClient(
      t.app,
      (await createTestUser(t, b.account.customer_id, 'owner')).email,
    );
    expect((await stranger.get(`/console/captured/${campaign.copy}`)).statusCode).toBe(404);
    expect((await owner.get('/console/captured/not-a-uuid')).statusCode).toBe(404);
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
      .where('target', 'like', 'message:%')
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
