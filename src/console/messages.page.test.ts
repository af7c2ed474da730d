/** The message log over HTTP: search by each filter, keyset pages, a timeline per recipient, content only with the permission and audited. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import type { Worker } from '../jobs/worker.ts';
import { sendMessage, startDeliveryWorker, waitUntilFinished } from '../delivery/delivery.test-support.ts';
import { tokenUrls } from '../mail/tokens.ts';
import { searchLog } from '../email/message-log.service.ts';
import { createTestUser, signInClient, type ConsoleClient } from './console.test-support.ts';

let t: TestApp;
let a: TestAccount;
let worker: Worker;
let owner: ConsoleClient;
let admin: ConsoleClient;
let viewer: ConsoleClient;
const ids: string[] = [];

beforeAll(async () => {
  t = await createTestApp();
  a = await t.createAccount();
  worker = startDeliveryWorker(t);
  for (let i = 0; i < 4; i++)
    ids.push(
      await sendMessage(t, a, {
        recipients: [`patient${i % 2}@example.net`],
        headers: { subject: `Lab results ${i}`, from: `clinic@${a.domain}` },
        content: {
          'text/plain': `Potassium ${i}`,
          'text/html': `<p>Potassium ${i} <a href="https://clinic.example/r">results</a></p>`,
        },
      }),
    );
  for (const id of ids) await waitUntilFinished(t, id);
  owner = await signInClient(t.app, (await createTestUser(t, a.account.customer_id, 'owner')).email);
  admin = await signInClient(t.app, (await createTestUser(t, a.account.customer_id, 'admin')).email);
  viewer = await signInClient(t.app, (await createTestUser(t, a.account.customer_id, 'viewer')).email);
});
afterAll(async () => {
  await worker?.stop();
  await t?.close();
});

const found = (body: string) => [...body.matchAll(/href="\/console\/messages\/([\w-]+)"/g)].map((m) => m[1]!);

describe('message log', () => {
  it('lists newest first and finds by recipient, tracking id, exact subject, status and dates', async () => {
    expect(found((await viewer.get('/console/messages')).body)).toEqual([...ids].reverse());
    expect(found((await viewer.get('/console/messages?recipient=patient1%40example.net')).body)).toEqual([
      ids[3],
      ids[1],
    ]);
    expect(found((await viewer.get(`/console/messages?id=${ids[2]}`)).body)).toEqual([ids[2]]);
    expect(found((await owner.get('/console/messages?subject=lab%20RESULTS%20 0')).body)).toEqual([ids[0]]);
    expect(found((await viewer.get('/console/messages?status=delivered')).body)).toHaveLength(4);
    expect(found((await viewer.get('/console/messages?status=failed')).body)).toEqual([]);
    const today = new Date().toISOString().slice(0, 10);
    expect(found((await viewer.get(`/console/messages?from=${today}&to=${today}`)).body)).toHaveLength(4);
    expect(found((await viewer.get('/console/messages?to=2020-01-01')).body)).toEqual([]);
    const bad = await viewer.get('/console/messages?from=yesterday');
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('must be a date');
  });

  it('lets only the protected-content permission search by subject, and audits each search', async () => {
    const audits = async () =>
      (
        await t.ctx.database.db
          .selectFrom('audit_log')
          .select(['action', 'detail'])
          .where('customer_id', '=', a.account.customer_id)
          .where('action', '=', 'message.subject_search')
          .execute()
      ).length;
    const before = await audits();
    const refused = await viewer.get('/console/messages?subject=Lab%20results%202');
    expect(refused.statusCode).toBe(403);
    expect(refused.body).not.toContain(ids[2]);
    expect((await viewer.get('/console/messages')).body).not.toContain('name="subject"');
    expect(await audits()).toBe(before);
    const res = await owner.get('/console/messages?subject=Lab%20results%202');
    expect(found(res.body)).toEqual([ids[2]]);
    expect(await owner.get('/console/messages?subject=Not%20sent')).toMatchObject({ statusCode: 200 });
    expect(await audits()).toBe(before + 2);
  });

  it('pages with a cursor: every message once, in order', async () => {
    const seen: string[] = [];
    let after: string | undefined;
    do {
      const page = await searchLog(t.ctx, a.account.customer_id, { limit: 3, after });
      seen.push(...page.messages.map((m) => m.id));
      after = page.next ?? undefined;
    } while (after);
    expect(seen).toEqual([...ids].reverse());
    const second = await viewer.get(
      `/console/messages?after=${encodeURIComponent((await searchLog(t.ctx, a.account.customer_id, { limit: 1 })).next!)}`,
    );
    expect(found(second.body)).toEqual([ids[2], ids[1], ids[0]]);
    expect((await viewer.get('/console/messages?after=nonsense')).statusCode).toBe(400);
    expect((await viewer.get(`/console/messages?after=${'9'.repeat(30)}.x`)).statusCode).toBe(400);
    const first = await viewer.get('/console/messages');
    expect(first.body).not.toContain('Older messages');
  });

  it('shows a timeline per recipient with accepted, delivered, opened and clicked, and no content', async () => {
    const recipient = await t.ctx.database.db
      .selectFrom('message_recipients')
      .select('id')
      .where('message_id', '=', ids[0]!)
      .executeTakeFirstOrThrow();
    const path = (u: string) => new URL(u).pathname;
    await t.app.inject({
      method: 'GET',
      url: path(tokenUrls.transactional.open(t.ctx.publicUrl, t.ctx.keys.tracking, recipient.id)),
    });
    await t.app.inject({
      method: 'GET',
      url: path(tokenUrls.transactional.click(t.ctx.publicUrl, t.ctx.keys.tracking, recipient.id, 0)),
    });
    const page = await viewer.get(`/console/messages/${ids[0]}`);
    expect(page.statusCode).toBe(200);
    const steps = [...page.body.matchAll(/<li><strong>([^<]+)<\/strong>/g)].map((m) => m[1]);
    expect(steps).toEqual(['accepted', 'captured, not sent', 'opened', 'clicked']);
    expect(page.body).not.toContain('Potassium');
    expect(page.body).not.toContain('Show content');
    expect(page.body).toContain('does not allow reading protected content');
  });

  it('shows content to a reader of protected content only, and records each view', async () => {
    expect((await viewer.get(`/console/messages/${ids[1]}/content`)).statusCode).toBe(403);
    expect((await admin.get(`/console/messages/${ids[1]}/content`)).statusCode).toBe(403);
    const audit = () =>
      t.ctx.database.db
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'message.content_read')
        .where('target', '=', `message:${ids[1]}`)
        .execute();
    expect(await audit()).toHaveLength(0);
    expect((await owner.get(`/console/messages/${ids[1]}`)).body).toContain('Show content');
    const res = await owner.get(`/console/messages/${ids[1]}/content`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Potassium 1');
    expect(res.body).toContain('Lab results 1');
    const rows = await audit();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.actor_type).toBe('user');
    expect(rows[0]!.detail).not.toContain('Potassium');
  });

  it('says "captured, not sent" in capture mode where the API receipt keeps "delivered"', async () => {
    const log = (await viewer.get('/console/messages')).body;
    expect(log).toContain('<span class="muted">captured, not sent</span>');
    expect(log).toContain('<option value="delivered" >captured, not sent</option>');
    const page = (await viewer.get(`/console/messages/${ids[2]}`)).body;
    expect(page).toMatch(/captured, not sent · captured, not sent · 1 attempt/);
    expect(page).not.toMatch(/>\s*delivered/);
    const receipt = await t.app.inject({
      method: 'GET',
      url: `/v1/email/message_receipt?sourceTrackingId=${ids[2]}`,
      headers: a.auth,
    });
    expect(receipt.json().data.message.message_deliveries[0].status.deliveryStatus).toBe('delivered');
  });

  it("answers another account's message as not found", async () => {
    const other = await t.createAccount();
    const id = await sendMessage(t, other, {});
    expect((await owner.get(`/console/messages/${id}`)).statusCode).toBe(404);
    expect((await owner.get(`/console/messages/${id}/content`)).statusCode).toBe(404);
    expect(found((await owner.get(`/console/messages?id=${id}`)).body)).toEqual([]);
  });
});
