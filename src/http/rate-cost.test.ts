import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';

const redisUrl = process.env.SEALPOST_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function countMessages(t: TestApp): Promise<number> {
  const r = await t.ctx.database.db
    .selectFrom('messages')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

const send = (t: TestApp, a: TestAccount, recipients: string[]) =>
  t.app.inject({
    method: 'POST',
    url: '/v1/email/messages',
    headers: a.auth,
    payload: {
      data: {
        message: {
          recipients,
          headers: { from: `noreply@${a.domain}`, subject: 'Hi' },
          content: { 'text/plain': 'x' },
        },
      },
    },
  });

describe.each([
  ['in memory', {}],
  ['through Redis', { rateLimitRedisUrl: redisUrl }],
])('rate limit counting recipients, %s', (_name, extra) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ config: { rateLimitPerMinute: 10, ...extra } });
  });
  afterAll(() => t.close());

  it('charges a send one unit per recipient', async () => {
    const a = await t.createAccount();
    const res = await send(t, a, ['a@example.org', 'b@example.org', 'c@example.org', 'd@example.org']);
    expect(res.statusCode).toBe(200);
    expect(res.headers['ratelimit-remaining']).toBe('6');
  });

  it('refuses a send with more recipients than the budget left with 429, storing nothing', async () => {
    const a = await t.createAccount();
    const before = await countMessages(t);
    const res = await send(
      t,
      a,
      Array.from({ length: 11 }, (_, i) => `r${i}@example.org`),
    );
    expect(res.statusCode).toBe(429);
    expect(res.json().error_code).toBe('rate_limited');
    expect(await countMessages(t)).toBe(before);
  });

  it('refuses an exhausted key before reading its body: a malformed body gets 429, not 400', async () => {
    const a = await t.createAccount();
    for (let i = 0; i < 10; i++)
      expect(
        (await t.app.inject({ method: 'GET', url: '/v1/email/dynamic_templates', headers: a.auth }))
          .statusCode,
      ).toBe(200);
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/email/messages',
      headers: { ...a.auth, 'content-type': 'application/json' },
      payload: '{"data": ',
    });
    expect(res.statusCode).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });
});
