import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { simpleParser } from 'mailparser';
import type { Worker } from '../../jobs/worker.ts';
import { addDomain } from '../../accounts/domains.service.ts';
import { startDeliveryWorker } from '../../delivery/delivery.test-support.ts';
import { TEST_BY, createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { waitFor } from '../../test/wait.ts';
import { keyOf, makeSubscriber, marketingClient } from '../marketing.test-support.ts';
import { makeMailing, rowCount } from './mailings.test-support.ts';

let t: TestApp;
let a: TestAccount;
let call: ReturnType<typeof marketingClient>;
let worker: Worker | undefined;
let n = 0;
beforeAll(async () => {
  t = await createTestApp();
  a = await t.createAccount();
  call = marketingClient(t, a);
});
afterEach(async () => {
  await worker?.stop(2000);
  worker = undefined;
});
afterAll(() => t.close());

const content = {
  html_part: '<p>Dear {{first_name}} {{last_name}}, your colour is {{[Favourite colour]}}.</p>',
  text_part: 'Dear {{first_name}}, colour {{custom_fields.[Favourite colour]}}.',
};
const mailing = (extra: Record<string, unknown> = {}) =>
  makeMailing(call, `Hello {{first_name}} ${++n}`, {
    ...content,
    from_email: `news@${a.domain}`,
    from_name: 'Clinic News',
    ...extra,
  });
const messageCount = () => rowCount(t, 'messages');
const testEmail = (id: string, to: string) =>
  call('GET', `/campaign_mailings/${id}/send_test_email?to_email=${encodeURIComponent(to)}`);

/** The mail captured for an address, parsed, once delivery has captured it. */
async function capturedFor(to: string) {
  const raw = await waitFor(
    async () => {
      const res = await t.app.inject({ method: 'GET', url: '/v1/email/captured_messages', headers: a.auth });
      return (res.json().captured as { envelope_to: string; raw: string }[]).find((c) => c.envelope_to === to)
        ?.raw;
    },
    10_000,
    25,
    `a captured message to ${to}`,
  );
  return simpleParser(raw);
}

describe('GET /campaign_mailings/<id>/send_test_email', () => {
  it('sends a preview personalised for the subscriber with that address, with [Test] before the subject', async () => {
    await makeSubscriber(call, 'ada@example.net', {
      first_name: 'Ada',
      last_name: '<Lovelace>',
      custom_fields: [{ name: 'Favourite colour', value: 'blue & gold' }],
    });
    const id = await mailing();
    worker = startDeliveryWorker(t);
    const res = await testEmail(id, 'ada@example.net');
    expect(res.statusCode, res.body).toBe(204);
    expect(res.body).toBe('');
    const mail = await capturedFor('ada@example.net');
    expect(mail.subject).toBe(`[Test] Hello Ada ${n}`);
    expect(mail.from?.value).toEqual([{ address: `news@${a.domain}`, name: 'Clinic News' }]);
    expect(mail.html).toContain('<p>Dear Ada &lt;Lovelace&gt;, your colour is blue &amp; gold.</p>');
    expect(mail.text?.trim()).toBe('Dear Ada, colour blue & gold.');
  });

  it('fills empty values for an address that is not a subscriber', async () => {
    const id = await mailing();
    worker = startDeliveryWorker(t);
    expect((await testEmail(id, 'stranger@example.net')).statusCode).toBe(204);
    const mail = await capturedFor('stranger@example.net');
    expect(mail.subject).toBe(`[Test] Hello  ${n}`);
    expect(mail.html).toContain('<p>Dear  , your colour is .</p>');
  });

  it('is not recorded as a campaign send', async () => {
    const id = await mailing();
    expect((await testEmail(id, 'nobody@example.net')).statusCode).toBe(204);
    const sends = await t.ctx.database.db
      .selectFrom('campaign_mailing_sends')
      .select('id')
      .where('campaign_mailing_id', '=', await keyOf(t, 'campaign_mailings', id))
      .execute();
    expect(sends).toEqual([]);
    expect((await call('GET', `/campaign_mailings/${id}`)).json().data.attributes.sent_count).toBe(0);
  });

  it.each([
    ['a missing to_email', ''],
    ['an invalid to_email', '?to_email=not-an-address'],
    ['a to_email with a display name', `?to_email=${encodeURIComponent('Ada <ada@example.net>')}`],
  ])('refuses %s with 400 and sends nothing', async (_what, query) => {
    const id = await mailing();
    const before = await messageCount();
    const res = await call('GET', `/campaign_mailings/${id}/send_test_email${query}`);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ error_code: 'request.invalid' });
    expect(await messageCount()).toBe(before);
  });

  it('answers 422 naming the cause for a mailing without from_email', async () => {
    const id = await makeMailing(call, `No sender ${++n}`);
    const before = await messageCount();
    const res = await testEmail(id, 'ada@example.net');
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({
      error_code: 'marketing.sender_invalid',
      message: /has no from_email/,
    });
    expect(await messageCount()).toBe(before);
  });

  it('answers 422 for a from_email on a domain the account has not verified', async () => {
    await addDomain(t.ctx.database.db, t.ctx.sealer, a.account.customer_id, `pending.${a.domain}`, TEST_BY);
    for (const from of ['news@unknown.example', `news@pending.${a.domain}`]) {
      const id = await mailing({ from_email: from });
      const res = await testEmail(id, 'ada@example.net');
      expect(res.statusCode, from).toBe(422);
      expect(res.json()).toMatchObject({
        error_code: 'marketing.sender_invalid',
        message: /not a verified domain/,
      });
    }
  });

  it('answers 404 for an unknown mailing', async () => {
    const res = await testEmail('123456', 'ada@example.net');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ error_code: 'marketing.mailing_not_found' });
  });
});
