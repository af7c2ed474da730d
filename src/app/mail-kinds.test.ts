/**
 * Both kinds of outbound mail through the one port the tracking routes and the secure page are handed: the open pixel
 * and tracked links a kind puts in its mail count on that kind's tables, marketing's unsubscribe link unsubscribes, and
 * a secure link a kind's store saved opens the copy on the secure page (and expires there).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MailKind } from '../delivery/kind.ts';
import type { Worker } from '../jobs/worker.ts';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { startDeliveryWorker } from '../delivery/delivery.test-support.ts';
import { message, postJson, recipientsOf } from '../email/email.test-support.ts';
import { makeList, makeSubscriber, marketingClient } from '../marketing/marketing.test-support.ts';
import { makeMailing } from '../marketing/mailings/mailings.test-support.ts';
import { startSendOf, waitUntilSent } from '../marketing/campaigns/sends.test-support.ts';
import { secureTokenHash } from '../web/secure-message.service.ts';
import { mailKinds } from './mail-kinds.ts';

let t: TestApp;
let acct: TestAccount;
let kinds: MailKind[];

beforeAll(async () => {
  t = await createTestApp();
  acct = await t.createAccount();
  kinds = mailKinds(t.ctx);
});
afterAll(() => t.close());

const kind = (name: MailKind['name']) => kinds.find((k) => k.name === name)!;
const get = (url: string) => t.app.inject({ method: 'GET', url });
const path = (url: string) => new URL(url).pathname;
const hrefs = (html: string, part: string) =>
  [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!).filter((u) => u.includes(part));

/** Saves a secure link through the kind's store, as the engine does before a notification; returns the token. */
async function secureLink(k: MailKind, id: number, expiresAt: number): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await k.store.saveSecureLink(id, secureTokenHash(token), expiresAt);
  return token;
}

it('lists the transactional kind first, then the marketing kind, each on its own lane', () => {
  expect(kinds.map((k) => [k.name, k.lane.queue, k.tracking.prefix])).toEqual([
    ['transactional', 'email.transactional', '/t'],
    ['marketing', 'marketing.delivery', '/t/m'],
  ]);
});

describe('transactional mail through its kind', () => {
  let messageId: string;
  let recipientId: number;

  beforeAll(async () => {
    const res = await postJson(t, '/v1/email/messages', acct.auth, {
      data: {
        message: message(`desk@${acct.domain}`, {
          headers: { subject: 'Your results', from: `desk@${acct.domain}` },
          content: { 'text/html': '<p>See <a href="https://portal.example/r/1">your results</a></p>' },
        }),
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    messageId = res.json().sourceTrackingId as string;
    recipientId = (await recipientsOf(t, messageId))[0]!.id;
  });

  it('counts an open of the pixel its tracker puts in the mail', async () => {
    const res = await get(path(kind('transactional').tracker.openPixelUrl(recipientId)));
    expect(res.statusCode).toBe(200);
    expect((await recipientsOf(t, messageId))[0]!.open_count).toBe(1);
  });

  it('redirects a link its tracker rewrote to the target and counts the click', async () => {
    const k = kind('transactional');
    const item = await k.store.load(recipientId);
    const [link] = hrefs(k.tracker.rewriteLinks!(item!.content!.html!, recipientId), '/t/c/');
    const res = await get(path(link!));
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('https://portal.example/r/1');
    const m = await t.ctx.database.db
      .selectFrom('messages')
      .select('total_clicks')
      .where('id', '=', messageId)
      .executeTakeFirstOrThrow();
    expect(m.total_clicks).toBe(1);
  });

  it('has no unsubscribe link of its own', () => {
    expect(kind('transactional').tracking.unsubscribe).toBeUndefined();
  });

  it('shows the message on the secure page through a link its store saved', async () => {
    const token = await secureLink(kind('transactional'), recipientId, Date.now() + 60_000);
    const res = await get(`/s/${token}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Your results');
  });

  it('answers a link its store saved with an expiry in the past with the expired page', async () => {
    const token = await secureLink(kind('transactional'), recipientId, Date.now() - 1000);
    expect((await get(`/s/${token}`)).statusCode).toBe(410);
  });

  it('finds no marketing delivery by a transactional secure link', async () => {
    const token = await secureLink(kind('transactional'), recipientId, Date.now() + 60_000);
    expect(await kind('marketing').secure.find(secureTokenHash(token))).toBeUndefined();
  });
});

describe('marketing mail through its kind', () => {
  let worker: Worker;
  let deliveryId: number;
  let html: string;

  beforeAll(async () => {
    worker = startDeliveryWorker(t);
    const call = marketingClient(t, acct);
    const list = await makeList(call, 'Patients');
    await makeSubscriber(call, 'gail@patients.example', { first_name: 'Gail' }, list);
    const mailing = await makeMailing(call, 'Screening reminder', {
      html_part: '<p>Dear {{first_name}}, <a href="https://clinic.example/book">book a visit</a>.</p>',
      from_email: `care@${acct.domain}`,
    });
    await waitUntilSent(call, await startSendOf(call, acct, mailing, list));
    const d = await t.ctx.database.db
      .selectFrom('marketing_deliveries')
      .select('id')
      .where('email', '=', 'gail@patients.example')
      .executeTakeFirstOrThrow();
    deliveryId = d.id;
    const item = await kind('marketing').store.load(deliveryId);
    html = item!.content!.html!;
  });
  afterAll(() => worker.stop(2000));

  const delivery = () =>
    t.ctx.database.db
      .selectFrom('marketing_deliveries')
      .selectAll()
      .where('id', '=', deliveryId)
      .executeTakeFirstOrThrow();

  it('counts an open of the pixel its tracker puts in the mail', async () => {
    const res = await get(path(kind('marketing').tracker.openPixelUrl(deliveryId)));
    expect(res.statusCode).toBe(200);
    expect((await delivery()).open_count).toBe(1);
  });

  it('redirects a tracked link of its rendered mail to the target and counts the click', async () => {
    const [link] = hrefs(html, '/t/m/c/');
    const res = await get(path(link!));
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('https://clinic.example/book');
    expect((await delivery()).click_count).toBe(1);
  });

  it('unsubscribes the subscriber through the unsubscribe link of its rendered mail', async () => {
    const [link] = hrefs(html, '/u/');
    const res = await t.app.inject({
      method: 'POST',
      url: path(link!),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'scope=list',
    });
    expect(res.statusCode).toBe(200);
    expect((await delivery()).unsubscribed_at).not.toBeNull();
  });

  it('shows the email as rendered for its subscriber on the secure page through a link its store saved', async () => {
    const token = await secureLink(kind('marketing'), deliveryId, Date.now() + 60_000);
    const res = await get(`/s/${token}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Dear Gail,');
    const read = await t.ctx.database.db
      .selectFrom('audit_log')
      .select(['actor_type', 'target'])
      .where('action', '=', 'secure_message.read')
      .where('target', '=', `campaign_delivery:${deliveryId}`)
      .executeTakeFirst();
    expect(read).toEqual({ actor_type: 'recipient', target: `campaign_delivery:${deliveryId}` });
  });

  it('answers a link its store saved with an expiry in the past with the expired page', async () => {
    const token = await secureLink(kind('marketing'), deliveryId, Date.now() - 1000);
    expect((await get(`/s/${token}`)).statusCode).toBe(410);
  });
});
