import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { message, postJson, recipientsOf } from './email.test-support.ts';
import { capturedAad } from './captured.service.ts';

describe('GET /captured_messages', () => {
  let t: TestApp;
  let acme: TestAccount;
  let other: TestAccount;
  let messageId: string;
  const raw = 'From: desk@x\r\nTo: a@example.net\r\nSubject: Hi\r\n\r\nHello\r\n';

  /** Stores a captured copy the way the capture transport does: raw MIME sealed to its message and recipient. */
  async function capture(who: TestAccount, id: string, body: string | null) {
    const [r] = await recipientsOf(t, id);
    await t.ctx.database.db
      .insertInto('captured_messages')
      .values({
        customer_id: who.account.customer_id,
        message_id: id,
        recipient_id: r!.id,
        envelope_from: `bounce@${who.domain}`,
        envelope_to: r!.address,
        raw: body === null ? null : t.ctx.sealer.seal(body, capturedAad(id, r!.id)),
        created_at: Date.now(),
      })
      .execute();
  }

  async function send(who: TestAccount): Promise<string> {
    const res = await postJson(t, '/v1/email/messages', who.auth, {
      data: { message: message(`desk@${who.domain}`) },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().sourceTrackingId as string;
  }

  beforeAll(async () => {
    t = await createTestApp();
    acme = await t.createAccount({ username: 'capacme' });
    other = await t.createAccount({ username: 'capother' });
    messageId = await send(acme);
    await capture(acme, messageId, raw);
    await capture(acme, await send(acme), 'Subject: second\r\n\r\nx\r\n');
    await capture(other, await send(other), 'Subject: not yours\r\n\r\nx\r\n');
  });
  afterAll(() => t.close());

  const get = (url: string, who: TestAccount = acme) =>
    t.app.inject({ method: 'GET', url, headers: who.auth });

  it('lists the captured copies of one message with the raw MIME opened, under every prefix', async () => {
    for (const prefix of ['/v1/email', '/v1/capacme', '/v1']) {
      const res = await get(`${prefix}/captured_messages?sourceTrackingId=${messageId}`);
      expect(res.statusCode, prefix).toBe(200);
      expect(res.json()).toEqual({
        captured: [
          {
            id: expect.any(Number),
            sourceTrackingId: messageId,
            recipient: 'rcpt@example.net',
            envelope_from: `bounce@${acme.domain}`,
            envelope_to: 'rcpt@example.net',
            raw,
            created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/),
          },
        ],
      });
    }
  });

  it("lists only the account's own captured messages, newest first, without a filter", async () => {
    const res = await get('/v1/email/captured_messages');
    const list = res.json().captured as { id: number; raw: string }[];
    expect(list.map((c) => c.raw)).toEqual(['Subject: second\r\n\r\nx\r\n', raw]);
  });

  it("does not show another account's message even when asked by its id", async () => {
    const res = await get(`/v1/email/captured_messages?sourceTrackingId=${messageId}`, other);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ captured: [] });
  });

  it('shows a raw message purged by retention as null', async () => {
    const id = await send(acme);
    await capture(acme, id, null);
    const res = await get(`/v1/email/captured_messages?sourceTrackingId=${id}`);
    expect(res.json().captured[0].raw).toBeNull();
  });

  it('needs the email scope', async () => {
    const formsOnly = await t.createAccount({ scopes: 'forms' });
    expect((await get('/v1/email/captured_messages', formsOnly)).statusCode).toBe(401);
  });
});
