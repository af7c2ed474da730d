/** A send's analytics over time: first opens and clicks per hour for two days, then per day; links with their clickers. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { seedClicks, seedDelivery, seedMailing, seedSend, seedSubscriber } from './analytics.test-support.ts';
import { buckets, sendAnalytics } from './timeline.service.ts';

const HOUR = 3_600_000;
const START = Date.UTC(2026, 0, 5, 9, 0, 0);

let t: TestApp;
let a: TestAccount;
let other: TestAccount;
let sendId: number;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.createAccount();
  other = await t.createAccount();
  const db = t.ctx.database.db;
  const cid = a.account.customer_id;
  const mailing = await seedMailing(db, cid, { subject: 'Checkups' });
  sendId = await seedSend(db, cid, {
    mailingId: mailing,
    listName: 'Patients',
    created_at: START,
    sent_at: START,
    links: ['https://clinic.example/book', 'https://clinic.example/hours'],
    sent_count: 5,
    delivered_count: 4,
    bounced_count: 1,
    viewed_count: 4,
    clicked_count: 2,
    unsubscribed_count: 1,
  });
  // Opens 30 minutes, 1 h 10, 1 h 50 and 3 days after the start; clicks at 1 h 15 (twice, two links) and 50 hours.
  const opens = [0.5, 1.2, 1.8, 74];
  const ids: number[] = [];
  for (const [i, h] of opens.entries()) {
    const sub = await seedSubscriber(db, cid, { email: `p${i}@example.org` });
    ids.push(
      await seedDelivery(db, cid, {
        sendId,
        mailingId: mailing,
        subscriberId: sub,
        email: `p${i}@example.org`,
        created_at: START,
        first_opened_at: START + h * HOUR,
      }),
    );
  }
  const click = (d: number, htmlId: number, h: number, times = 1) =>
    seedClicks(db, {
      deliveryId: d,
      sendId,
      htmlId,
      targetUrl: htmlId === 0 ? 'https://clinic.example/book' : 'https://clinic.example/hours',
      at: START + h * HOUR,
      times,
    });
  await click(ids[1]!, 0, 1.25, 3);
  await click(ids[1]!, 1, 1.5);
  await click(ids[3]!, 0, 50);
});
afterAll(async () => t?.close());

describe('send analytics over time', () => {
  it('counts first opens and first clicks per hour, then per day, from the deliveries', async () => {
    const r = await sendAnalytics(t.ctx, a.account.customer_id, String(sendId), START + 80 * HOUR);
    expect(r.hourly!.x).toHaveLength(48);
    expect(r.hourly!.x[1]).toBe(START + HOUR);
    expect(r.hourly!.opens.slice(0, 3)).toEqual([1, 2, 0]);
    // One email clicked twice (two links) in hour 1 counts once, at its first click.
    expect(r.hourly!.clicks.slice(0, 3)).toEqual([0, 1, 0]);
    expect(r.hourly!.opens.reduce((x, y) => x + y)).toBe(3);
    // Day 0 after the hourly span covers hours 48 to 71, day 1 hours 72 to 95.
    expect(r.daily!.x).toEqual([START + 48 * HOUR, START + 72 * HOUR]);
    expect(r.daily!.opens).toEqual([0, 1]);
    expect(r.daily!.clicks).toEqual([1, 0]);
    expect(r.totals).toMatchObject({ delivered: 4, bounced: 1, unsubscribed: 1, opened: 4, clicked: 2 });
  });

  it('lists each link with its clicks and the number of people who clicked it', async () => {
    const r = await sendAnalytics(t.ctx, a.account.customer_id, String(sendId));
    expect(r.links).toEqual([
      { html_id: 0, target_url: 'https://clinic.example/book', clicks: 4, clickers: 2 },
      { html_id: 1, target_url: 'https://clinic.example/hours', clicks: 1, clickers: 1 },
    ]);
  });

  it('runs the hourly axis only up to now in the first two days', async () => {
    const r = await sendAnalytics(t.ctx, a.account.customer_id, String(sendId), START + 2.5 * HOUR);
    // Hours with data after "now" still show (a clock behind the database's), so the axis reaches the last open.
    expect(r.hourly!.x.length).toBe(48);
    expect(buckets(START, 2, [{ hour: 1, n: 2 }], []).hourly.opens).toEqual([0, 2, 0]);
    expect(buckets(START, 2, [], []).daily).toBeNull();
  });

  it('is not found for another account or a malformed id', async () => {
    await expect(sendAnalytics(t.ctx, other.account.customer_id, String(sendId))).rejects.toMatchObject({
      code: 'marketing.send_not_found',
    });
    await expect(sendAnalytics(t.ctx, a.account.customer_id, 'x')).rejects.toMatchObject({
      code: 'marketing.send_not_found',
    });
  });
});
