import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { tokenUrls } from '../mail/tokens.ts';
import { message, postJson, recipientsOf } from './email.test-support.ts';

const RFC2822 =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}$/;

describe('GET /message_receipt', () => {
  let t: TestApp;
  let acme: TestAccount;
  let other: TestAccount;

  beforeAll(async () => {
    t = await createTestApp();
    acme = await t.createAccount({ username: 'rcptacme' });
    other = await t.createAccount();
  });
  afterAll(() => t.close());

  const receipt = (id: string, who = acme, prefix = '/v1/email') =>
    t.app.inject({
      method: 'GET',
      url: `${prefix}/message_receipt?sourceTrackingId=${encodeURIComponent(id)}`,
      headers: who.auth,
    });
  const send = async (extra: Record<string, unknown> = {}) => {
    const res = await postJson(t, '/v1/email/messages', acme.auth, {
      data: { message: message(`desk@${acme.domain}`, extra) },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().sourceTrackingId as string;
  };

  it('answers an unknown id with 404 carrying the id asked for', async () => {
    const id = randomUUID();
    const res = await receipt(id);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({
      sourceTrackingId: id,
      error_code: 'email.message_not_found',
      errors: [{ code: 404 }],
    });
    expect(typeof res.json().message).toBe('string');
  });

  it("answers another account's message with the same 404", async () => {
    const id = await send();
    const res = await receipt(id, other);
    expect(res.statusCode).toBe(404);
    expect(res.json().sourceTrackingId).toBe(id);
  });

  it('answers 400 without a sourceTrackingId', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/email/message_receipt', headers: acme.auth });
    expect(res.statusCode).toBe(400);
  });

  it.each(['/v1/email', '/v1/rcptacme', '/v1'])(
    'shows a fresh message as processing and not opened at %s',
    async (prefix) => {
      const id = await send({ recipients: ['a@example.net'], cc: ['b@example.net'] });
      const res = await receipt(id, acme, prefix);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.sourceTrackingId).toBe(id);
      expect(body.data.message).toMatchObject({
        id: `<${id}@${acme.domain}>`,
        total_opens: 0,
        distinct_opens: 0,
        total_click_count: 0,
        clicks_per_link: [],
        unsubscribed: false,
      });
      expect(
        body.data.message.message_deliveries.map(
          (d: { recipient: string; status: Record<string, unknown> }) => [
            d.recipient,
            d.status.deliveryStatus,
            d.status.openedStatus,
          ],
        ),
      ).toEqual([
        ['a@example.net', 'processing', 'not opened'],
        ['b@example.net', 'processing', 'not opened'],
      ]);
    },
  );

  it('shows opens and clicks counted through the real tracking URLs', async () => {
    const html = '<p><a href="https://example.org/a">a</a> <a href="https://example.org/b">b</a></p>';
    const id = await send({ recipients: ['a@example.net', 'b@example.net'], content: { 'text/html': html } });
    const [first] = await recipientsOf(t, id);
    const path = (url: string) => new URL(url).pathname;
    const open = path(tokenUrls.transactional.open(t.ctx.publicUrl, t.ctx.keys.tracking, first!.id));
    expect((await t.app.inject({ method: 'GET', url: open })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: open })).statusCode).toBe(200);
    const click = await t.app.inject({
      method: 'GET',
      url: path(tokenUrls.transactional.click(t.ctx.publicUrl, t.ctx.keys.tracking, first!.id, 1)),
    });
    expect(click.statusCode).toBe(302);

    const m = (await receipt(id)).json().data.message;
    expect(m.total_opens).toBe(2);
    expect(m.distinct_opens).toBe(1);
    expect(m.total_click_count).toBe(1);
    expect(m.clicks_per_link).toEqual([{ click_count: 1, target_url: 'https://example.org/b' }]);
    expect(m.message_deliveries[0].status.openedStatus).toBe('opened');
    expect(m.message_deliveries[0].status.openedTime).toMatch(RFC2822);
    expect(m.message_deliveries[1].status.openedStatus).toBe('not opened');
  });

  it('counts nothing for a tampered token', async () => {
    const id = await send({ content: { 'text/html': '<a href="https://example.org/a">a</a>' } });
    const [first] = await recipientsOf(t, id);
    const open = new URL(tokenUrls.transactional.open(t.ctx.publicUrl, t.ctx.keys.tracking, first!.id))
      .pathname;
    const tampered = open.replace(/^\/t\/o\/o\.([0-9a-z]+)\./, (_, id: string) => `/t/o/o.${id}0.`);
    expect(tampered).not.toBe(open);
    expect((await t.app.inject({ method: 'GET', url: tampered })).statusCode).toBe(404);
    const m = (await receipt(id)).json().data.message;
    expect([m.total_opens, m.distinct_opens, m.message_deliveries[0].status.openedStatus]).toEqual([
      0,
      0,
      'not opened',
    ]);
  });
});
