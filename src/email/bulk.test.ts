import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { message, messageCount, postJson, rowCounts } from './email.test-support.ts';

const MAX = 5;

describe('POST /bulk_messages', () => {
  let t: TestApp;
  let acme: TestAccount;
  let from: string;

  beforeAll(async () => {
    t = await createTestApp({ config: { bulkMaxMessages: MAX } });
    acme = await t.createAccount({ username: 'bulkacme' });
    from = `desk@${acme.domain}`;
  });
  afterAll(() => t.close());

  const bulk = (messages: unknown[], url = '/v1/email/bulk_messages') =>
    postJson(t, url, acme.auth, { data: { messages } });
  const many = (n: number) =>
    Array.from({ length: n }, (_, i) => message(from, { recipients: [`r${i}@example.net`] }));

  async function refused(messages: unknown[], code: string, text: RegExp) {
    const before = await rowCounts(t);
    const res = await bulk(messages);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error_code).toBe(code);
    expect(res.json().message).toMatch(text);
    expect(await rowCounts(t)).toEqual(before);
  }

  it.each(['/v1/email/bulk_messages', '/v1/bulkacme/bulk_messages', '/v1/bulk_messages'])(
    'accepts up to the maximum at %s with one response per message, in order',
    async (url) => {
      const before = await rowCounts(t);
      const res = await bulk(many(MAX), url);
      expect(res.statusCode, res.body).toBe(200);
      const out = res.json().messages as { sourceTrackingId: string; data: string }[];
      expect(out).toHaveLength(MAX);
      expect(new Set(out.map((m) => m.sourceTrackingId)).size).toBe(MAX);
      expect(out.every((m) => m.data === 'Service OK')).toBe(true);
      expect((await rowCounts(t)).messages).toBe(before.messages! + MAX);
      for (const [i, m] of out.entries()) {
        const r = await t.ctx.database.db
          .selectFrom('message_recipients')
          .select('address')
          .where('message_id', '=', m.sourceTrackingId)
          .executeTakeFirstOrThrow();
        expect(r.address).toBe(`r${i}@example.net`);
      }
    },
  );

  it('echoes custom headers per message', async () => {
    const res = await bulk([
      message(from, { headers: { subject: 'a', from, 'x-batch': '1' } }),
      message(from),
    ]);
    expect(res.json().messages.map((m: { customHeaders?: unknown }) => m.customHeaders)).toEqual([
      { 'X-Batch': '1' },
      undefined,
    ]);
  });

  it('refuses more than the maximum with email.bulk_too_large and stores nothing', async () => {
    await refused(many(MAX + 1), 'email.bulk_too_large', new RegExp(`at most ${MAX}`));
  });

  it('refuses the whole request when one message has invalid base64, naming it', async () => {
    const messages = many(3);
    messages[2] = message(from, {
      attachments: [{ fileName: 'a', contentType: 'text/plain', content: '@@@' }],
    });
    await refused(messages, 'request.invalid', /data\.messages\[2\]\.attachments\[0\]\.content/);
  });

  it('refuses the whole request when one message has an unverified From, naming it', async () => {
    const messages = many(3);
    messages[1] = message('desk@elsewhere.example');
    await refused(messages, 'email.unverified_from', /data\.messages\[1\]\.headers\.from/);
  });

  it('refuses the whole request when one message lacks a subject, naming it', async () => {
    const messages = many(4);
    messages[3] = message(from, { headers: { from } });
    await refused(messages, 'request.invalid', /data\.messages\[3\]\.headers\.subject is required/);
  });

  it('refuses an empty list of messages', async () => {
    await refused([], 'request.invalid', /data\.messages/);
  });
});

describe('Idempotency-Key', () => {
  let t: TestApp;
  let acme: TestAccount;
  let other: TestAccount;

  beforeAll(async () => {
    t = await createTestApp();
    acme = await t.createAccount();
    other = await t.createAccount();
  });
  afterAll(() => t.close());

  const send = (who: TestAccount, key: string, body: unknown, url = '/v1/email/messages') =>
    postJson(t, url, { ...who.auth, 'idempotency-key': key }, body);
  const messagesOf = (who: TestAccount) => messageCount(t, who);

  it('answers a repeated request with the same sourceTrackingId and stores the message once', async () => {
    const body = { data: { message: message(`desk@${acme.domain}`) } };
    const before = await messagesOf(acme);
    const first = await send(acme, 'order-1', body);
    const second = await send(acme, 'order-1', body);
    expect(first.statusCode).toBe(200);
    expect(second.statusCode).toBe(200);
    expect(second.json()).toEqual(first.json());
    expect(await messagesOf(acme)).toBe(before + 1);
  });

  it('answers concurrent repeats with one message', async () => {
    const body = { data: { message: message(`desk@${acme.domain}`) } };
    const before = await messagesOf(acme);
    const results = await Promise.all([1, 2, 3, 4].map(() => send(acme, 'order-concurrent', body)));
    expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
    expect(new Set(results.map((r) => r.json().sourceTrackingId)).size).toBe(1);
    expect(await messagesOf(acme)).toBe(before + 1);
  });

  it('answers the same key with a different body with 422 and stores nothing more', async () => {
    await send(acme, 'order-2', { data: { message: message(`desk@${acme.domain}`) } });
    const before = await messagesOf(acme);
    const res = await send(acme, 'order-2', {
      data: { message: message(`desk@${acme.domain}`, { recipients: ['else@example.net'] }) },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ error_code: 'email.idempotency_mismatch', errors: [{ code: 422 }] });
    expect(await messagesOf(acme)).toBe(before);
  });

  it('lets another account use the same key', async () => {
    const mine = await send(acme, 'shared-key', { data: { message: message(`desk@${acme.domain}`) } });
    const theirs = await send(other, 'shared-key', { data: { message: message(`desk@${other.domain}`) } });
    expect(theirs.statusCode).toBe(200);
    expect(theirs.json().sourceTrackingId).not.toBe(mine.json().sourceTrackingId);
  });

  it('replays bulk responses too', async () => {
    const body = { data: { messages: [message(`desk@${acme.domain}`), message(`desk@${acme.domain}`)] } };
    const first = await send(acme, 'bulk-1', body, '/v1/email/bulk_messages');
    const second = await send(acme, 'bulk-1', body, '/v1/email/bulk_messages');
    expect(second.json()).toEqual(first.json());
    expect(first.json().messages).toHaveLength(2);
  });

  it('does not remember a key whose request was refused', async () => {
    const bad = await send(acme, 'order-3', { data: { message: message('desk@elsewhere.example') } });
    expect(bad.statusCode).toBe(400);
    const good = await send(acme, 'order-3', { data: { message: message(`desk@${acme.domain}`) } });
    expect(good.statusCode).toBe(200);
  });
});
