/** The send page's live progress: the counters the send keeps, read without writing anything per poll. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { createTestUser, signInClient, type ConsoleClient } from '../console.test-support.ts';
import { createList } from '../../marketing/lists/lists.service.ts';
import { createSubscriber } from '../../marketing/subscribers/subscribers.service.ts';
import { confirmedSend } from './campaigns.test-support.ts';

let t: TestApp;
let a: TestAccount;
let viewer: ConsoleClient;
let page: string;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.createAccount();
  const editor = await signInClient(t.app, (await createTestUser(t, a.account.customer_id, 'editor')).email);
  viewer = await signInClient(t.app, (await createTestUser(t, a.account.customer_id, 'viewer')).email);
  const composed = await editor.post('/console/campaigns/mailings', {
    _csrf: editor.csrf,
    subject: 'Opening hours',
    from_email: `news@${a.domain}`,
    from_name: 'Clinic',
    html_part: '<p>Hello {{first_name}}</p>',
    text_part: '',
  });
  const mailing = (composed.headers.location as string).split('/').pop()!;
  const list = await createList(t.ctx, a.account.customer_id, 'Readers');
  await createSubscriber(t.ctx, a.account.customer_id, { email: 'x@example.org' }, list.id);
  const sent = await confirmedSend(editor, mailing, { list: String(list.id) });
  page = sent.headers.location as string;
});
afterAll(async () => t?.close());

/** The viewer's session row. */
async function sessionSeenAt(): Promise<number> {
  const rows = await t.ctx.database.db
    .selectFrom('console_sessions')
    .select(['user_id', 'last_seen_at'])
    .execute();
  const users = await t.ctx.database.db.selectFrom('users').select(['id', 'role']).execute();
  const viewerId = users.find((u) => u.role === 'viewer')!.id;
  return Number(rows.find((r) => r.user_id === viewerId)!.last_seen_at);
}

describe('the live progress of a send', () => {
  it('answers the counters the send keeps', async () => {
    const startedAt = Date.now() - 10_000;
    await t.ctx.database.db
      .updateTable('campaign_mailing_sends')
      .set({
        state: 'sending',
        sent_at: startedAt,
        audience_count: 1200,
        sent_count: 1000,
        delivered_count: 950,
        bounced_count: 20,
        viewed_count: 300,
        clicked_count: 40,
      })
      .where('customer_id', '=', a.account.customer_id)
      .execute();
    const res = await viewer.get(`${page}/progress.json`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const progress = JSON.parse(res.body);
    expect(progress).toMatchObject({
      state: 'sending',
      expanded: 1200,
      sent: 1000,
      delivered: 950,
      bounced: 20,
      opened: 300,
      clicked: 40,
      finished: false,
    });
    expect(progress.per_second).toBeGreaterThan(90);
    expect(progress.per_second).toBeLessThanOrEqual(100);
  });

  it('leaves the session row alone when polled moments after the last request', async () => {
    const before = await sessionSeenAt();
    for (let i = 0; i < 3; i++) expect((await viewer.get(`${page}/progress.json`)).statusCode).toBe(200);
    expect(await sessionSeenAt()).toBe(before);
  });

  it("refreshes the session's activity once it is a minute old", async () => {
    const old = Date.now() - 61_000;
    await t.ctx.database.db.updateTable('console_sessions').set({ last_seen_at: old }).execute();
    expect((await viewer.get(`${page}/progress.json`)).statusCode).toBe(200);
    expect(await sessionSeenAt()).toBeGreaterThan(old + 60_000);
  });
});
