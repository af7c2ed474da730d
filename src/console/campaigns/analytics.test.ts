/** The campaign analytics pages over HTTP, read by a viewer: a send's results, who clicked a link, two sends compared. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { createTestUser, signInClient, type ConsoleClient } from '../console.test-support.ts';
import {
  seedClicks,
  seedDelivery,
  seedMailing,
  seedSend,
  seedSubscriber,
} from '../../marketing/analytics/analytics.test-support.ts';
import { uuidOf } from '../../marketing/marketing.test-support.ts';

let t: TestApp;
let a: TestAccount;
let viewer: ConsoleClient;
let sendA: string;
let sendB: string;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.createAccount();
  viewer = await signInClient(t.app, (await createTestUser(t, a.account.customer_id, 'viewer')).email);
  const db = t.ctx.database.db;
  const cid = a.account.customer_id;
  const mailing = await seedMailing(db, cid, { subject: 'Checkups' });
  const links = ['https://clinic.example/book'];
  const keyA = await seedSend(db, cid, {
    mailingId: mailing,
    listName: 'North',
    links,
    sent_count: 2,
    delivered_count: 2,
    viewed_count: 1,
    clicked_count: 1,
  });
  const keyB = await seedSend(db, cid, { mailingId: mailing, listName: 'South', links, sent_count: 4 });
  sendA = await uuidOf(db, 'campaign_mailing_sends', keyA);
  sendB = await uuidOf(db, 'campaign_mailing_sends', keyB);
  const sub = await seedSubscriber(db, cid, { email: 'reader@example.org', first_name: 'Rea' });
  const d = await seedDelivery(db, cid, {
    sendId: keyA,
    mailingId: mailing,
    subscriberId: sub,
    email: 'reader@example.org',
    first_opened_at: Date.now(),
  });
  await seedClicks(db, { deliveryId: d, sendId: keyA, htmlId: 0, targetUrl: links[0]!, times: 2 });
});
afterAll(async () => t?.close());

describe('campaign analytics pages', () => {
  it("shows a send's results, chart data and clicks per link to a viewer", async () => {
    const res = await viewer.get(`/console/campaigns/sends/${sendA}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Clicks per link');
    expect(res.body).toContain('data-chart=');
    expect(res.body).toMatch(/<td data-label="Clicks">2<\/td>/);
    expect(res.body).toContain(`/console/campaigns/sends/${sendA}/links/0`);
    expect(res.body).not.toContain('style=');
  });

  it('lists who clicked a link, and answers not found for a link the send does not have', async () => {
    const res = await viewer.get(`/console/campaigns/sends/${sendA}/links/0`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('reader@example.org');
    expect(res.body).toContain('1 person clicked this link');
    expect(res.body).toContain(`href="/console/campaigns/sends/${sendA}"`);
    expect((await viewer.get(`/console/campaigns/sends/${sendA}/links/7`)).statusCode).toBe(404);
  });

  it('compares two sends side by side', async () => {
    const res = await viewer.get(`/console/campaigns/compare?a=${sendA}&b=${sendB}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('North (first send)');
    expect(res.body).toContain('South (second send)');
    expect(res.body).toContain(`href="/console/campaigns/sends/${sendA}"`);
    expect(res.body).toContain(`href="/console/campaigns/sends/${sendB}"`);
    expect(res.body).toContain('1 (50.0%)');
    expect((await viewer.get('/console/campaigns/compare?a=999999&b=1')).statusCode).toBe(404);
  });
});
