/**
 * Double opt-in through a real SMTP sink: members who join a double opt-in list (through the API and through a CSV
 * import) get a confirmation email and receive no campaign until they confirm with its one-use, expiring link; members
 * the list had before count as confirmed.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { sinkTestBed } from '../campaigns/sends.test-support.ts';
import { waitFor } from '../../test/wait.ts';
import { keyOf, makeList, makeSubscriber } from '../marketing.test-support.ts';
import { makeMailing } from '../mailings/mailings.test-support.ts';
import { subscriberReachable } from '../deliveries/deliveries.repository.ts';
import { subscribersOf } from '../subscribers/subscribers.service.ts';
import { startImport, uploadImport, importOf } from '../imports/imports.service.ts';
import { CONFIRM_TTL_MS, confirmByToken, setListOptIn, unconfirmedMembers } from './optin.service.ts';

const { t, acct, sink, call } = sinkTestBed({ fileWorker: true });

const local = (url: string) => new URL(url.replace(/&amp;/g, '&')).pathname;
const received = (to: string) => sink.received.filter((m) => m.to.includes(to));

async function confirmLinkOf(to: string): Promise<string> {
  const mail = await waitFor(() => received(to)[0], 10_000, 20, `the confirmation email to ${to}`);
  const parsed = await mail.parsed();
  expect(parsed.subject).toBe('Confirm your subscription: Newsletter');
  expect(parsed.from?.value[0]?.address).toBe(`news@${acct.domain}`);
  return /https?:\/\/\S+\/confirm\/[A-Za-z0-9._-]+/.exec(parsed.text ?? '')![0];
}

async function sendTo(list: string, subject: string): Promise<string[]> {
  const mailing = await makeMailing(call, subject, {
    html_part: '<p>Hello {{first_name}}</p>',
    text_part: 'Hello {{first_name}}',
    from_email: `news@${acct.domain}`,
  });
  const res = await call('POST', '/campaign_mailing_sends', {
    campaign_mailing_id: mailing,
    campaign_mailing_send: { subscription_list_id: list, from_email: `news@${acct.domain}` },
  });
  expect(res.statusCode, res.body).toBe(200);
  const id = String(res.headers['sealpost-campaign-mailing-send-id']);
  await waitFor(
    async () => (await call('GET', `/campaign_mailing_sends/${id}`)).json().data.attributes.state === 'sent',
    15_000,
    50,
    'the send finishing',
  );
  const mails = await Promise.all(sink.received.map((m) => m.parsed()));
  return sink.received
    .filter((_, i) => mails[i]!.subject === subject)
    .map((m) => m.to[0]!)
    .sort();
}

describe('double opt-in', () => {
  it('refuses to turn on without a sender on a verified domain, and changes nothing', async () => {
    const list = await makeList(call, 'Unsendable');
    await expect(
      setListOptIn(t.ctx, acct.account.customer_id, list, { doubleOptIn: true, public: false }),
    ).rejects.toMatchObject({ code: 'request.invalid' });
    await expect(
      setListOptIn(t.ctx, acct.account.customer_id, list, {
        doubleOptIn: true,
        fromEmail: 'news@not-ours.example',
        public: false,
      }),
    ).rejects.toMatchObject({ code: 'marketing.sender_invalid' });
    const res = await call('GET', `/subscription_lists/${list}`);
    expect(res.statusCode).toBe(200);
  });

  it('changes the settings through the API, refusing bad input without changing anything', async () => {
    const list = await makeList(call, 'Through the API');
    const bad = await call('PATCH', `/subscription_lists/${list}/settings`, { double_opt_in: 'maybe' });
    expect(bad.statusCode).toBe(400);
    const unknown = await call('PATCH', `/subscription_lists/${list}/settings`, { colour: 'red' });
    expect(unknown.statusCode).toBe(400);
    const noSender = await call('PATCH', `/subscription_lists/${list}/settings`, { double_opt_in: true });
    expect(noSender.statusCode).toBe(400);
    expect(noSender.body).toContain('request.invalid');
    expect((await call('GET', `/subscription_lists/${list}`)).json().data.attributes).toMatchObject({
      double_opt_in: false,
      public: false,
    });
    const ok = await call('PATCH', `/subscription_lists/${list}/settings`, {
      double_opt_in: true,
      confirm_from_email: `news@${acct.domain}`,
      public: true,
    });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().data.attributes).toMatchObject({ double_opt_in: true, public: true });
    const off = await call('PATCH', `/subscription_lists/${list}/settings`, { public: false });
    expect(off.json().data.attributes).toMatchObject({ double_opt_in: true, public: false });
    const missing = await call('PATCH', '/subscription_lists/999999/settings', { public: true });
    expect(missing.statusCode).toBe(404);
  });

  it('keeps API and CSV members unconfirmed until they confirm; the link confirms once and expires', async () => {
    const customer = acct.account.customer_id;
    const list = await makeList(call, 'Newsletter');
    const old = await makeSubscriber(call, 'old@patients.example', { first_name: 'Old' }, list);
    const row = await setListOptIn(t.ctx, customer, list, {
      doubleOptIn: true,
      fromEmail: `news@${acct.domain}`,
      public: true,
    });
    expect(row.double_opt_in).toBe(1);
    expect(received('old@patients.example')).toHaveLength(0);

    const fresh = await makeSubscriber(call, 'new@patients.example', { first_name: 'New' }, list);
    const upload = await uploadImport(t.ctx, customer, {
      listId: list,
      fileName: 'people.csv',
      source: Readable.from([Buffer.from('email,first_name\ncsv@patients.example,Csv\n')]),
      createdBy: 'test',
    });
    await startImport(t.ctx, customer, upload.id, { '0': 'email', '1': 'first_name' }, false);
    await waitFor(async () => (await importOf(t.ctx, customer, upload.id)).state === 'done', 10_000);

    const newLink = await confirmLinkOf('new@patients.example');
    const csvLink = await confirmLinkOf('csv@patients.example');
    expect(received('old@patients.example')).toHaveLength(0);
    const csvId = (
      await subscribersOf(t.ctx, customer, {
        items: 10,
        page: 1,
        search: 'Csv',
        order_by: 'created_at',
        order: 'desc',
      })
    ).data[0]!.id;
    const listKey = await keyOf(t, 'subscription_lists', list);
    expect([...(await unconfirmedMembers(t.ctx, listKey, [old, fresh, csvId]))].sort()).toEqual(
      [fresh, csvId].sort(),
    );

    const subscription = async (sid: string) => {
      const res = await call('GET', `/subscriptions?use_pagination=true&items=100`);
      const all = res.json().data as {
        subscriber_id: number;
        subscription_list_id: string;
        confirmed: boolean;
      }[];
      const key = await keyOf(t, 'subscribers', sid);
      const found = all.find((s) => String(s.subscription_list_id) === list && s.subscriber_id === key);
      return found!.confirmed;
    };
    expect(await subscription(fresh)).toBe(false);
    expect(await subscription(old)).toBe(true);

    // Unconfirmed members receive no campaign, and the gate of every delivery (drip steps too) turns them away.
    const db = t.ctx.database.db;
    expect(await subscriberReachable(db, await keyOf(t, 'subscribers', fresh), listKey)).toBe(false);
    expect(await subscriberReachable(db, await keyOf(t, 'subscribers', old), listKey)).toBe(true);
    expect(await sendTo(list, 'First issue')).toEqual(['old@patients.example']);

    // The link's page changes nothing (mail scanners open links); its button confirms, once.
    const page = await t.app.inject({ method: 'GET', url: local(newLink) });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Yes, confirm my subscription');
    expect(await unconfirmedMembers(t.ctx, listKey, [fresh])).toEqual(new Set([fresh]));
    const confirmed = await t.app.inject({ method: 'POST', url: local(newLink) });
    expect(confirmed.statusCode).toBe(200);
    expect(confirmed.body).toContain('Subscription confirmed');
    expect(await unconfirmedMembers(t.ctx, listKey, [fresh])).toEqual(new Set());
    expect(await subscriberReachable(db, await keyOf(t, 'subscribers', fresh), listKey)).toBe(true);
    expect(await subscription(fresh)).toBe(true);
    // A second click says it was done, and changes nothing.
    for (const method of ['POST', 'GET'] as const) {
      const again = await t.app.inject({ method, url: local(newLink) });
      expect(again.statusCode).toBe(200);
      expect(again.body).toContain('Already confirmed');
      expect(again.body).not.toContain('Yes, confirm my subscription');
    }
    const forged = local(newLink).replace(/.$/, (ch) => (ch === 'A' ? 'B' : 'A'));
    expect((await t.app.inject({ method: 'GET', url: forged })).statusCode).toBe(404);

    // An expired link confirms nothing.
    const token = local(csvLink).split('/').pop()!;
    await expect(confirmByToken(t.ctx, token, Date.now() + CONFIRM_TTL_MS + 1000)).rejects.toMatchObject({
      code: 'not_found',
    });
    expect(await unconfirmedMembers(t.ctx, listKey, [csvId])).toEqual(new Set([csvId]));

    expect(await sendTo(list, 'Second issue')).toEqual(['new@patients.example', 'old@patients.example']);
  });
});
