import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { createTestApp, type TestApp } from '../test/harness.ts';
import { buildApp } from '../app/app.ts';

const addRoute = (app: import('./typed.ts').TypedApp) => {
  app.get('/v1/email/ping', async () => ({ ok: true }));
};

describe('per-key rate limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ config: { rateLimitPerMinute: 3 }, extraRoutes: addRoute });
  });
  afterAll(() => t.close());

  it('answers 429 with RateLimit and Retry-After headers once a key spends its budget', async () => {
    const a = await t.createAccount();
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 4; i++) {
      last = await t.app.inject({ method: 'GET', url: '/v1/email/ping', headers: a.auth });
      statuses.push(last.statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(last!.headers['ratelimit-limit']).toBe('3');
    expect(last!.headers['ratelimit-remaining']).toBe('0');
    expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
    expect(last!.json()).toMatchObject({
      error_code: 'rate_limited',
      errors: [{ code: 429, title: 'Too many requests' }],
    });
  });

  it('counts each key separately', async () => {
    const a = await t.createAccount();
    const b = await t.createAccount();
    for (let i = 0; i < 3; i++) await t.app.inject({ method: 'GET', url: '/v1/email/ping', headers: a.auth });
    expect((await t.app.inject({ method: 'GET', url: '/v1/email/ping', headers: a.auth })).statusCode).toBe(
      429,
    );
    const res = await t.app.inject({ method: 'GET', url: '/v1/email/ping', headers: b.auth });
    expect(res.statusCode).toBe(200);
    expect(res.headers['ratelimit-remaining']).toBe('2');
  });

  it('does not count public requests against any key', async () => {
    for (let i = 0; i < 5; i++)
      expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });
});

describe('rate limit shared through Redis', () => {
  let t: TestApp;
  const redisUrl = process.env.SEALPOST_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

  beforeAll(async () => {
    t = await createTestApp({
      config: { rateLimitPerMinute: 4, rateLimitRedisUrl: redisUrl },
      extraRoutes: addRoute,
    });
  });
  afterAll(() => t.close());

  it('makes two API nodes share one budget per key', async () => {
    const second = await buildApp(t.ctx, { extraRoutes: addRoute });
    try {
      const a = await t.createAccount();
      const nodes = [t.app, second, t.app, second, t.app];
      const statuses = [];
      for (const node of nodes)
        statuses.push(
          (await node.inject({ method: 'GET', url: '/v1/email/ping', headers: a.auth })).statusCode,
        );
      expect(statuses).toEqual([200, 200, 200, 200, 429]);
      const redis = new Redis(redisUrl);
      const keys = await redis.keys(`sealpost-rl:*${a.keyId}*`);
      await redis.quit();
      expect(keys.length).toBe(1);
    } finally {
      await second.close();
    }
  });
});
