/** The per-key API rate limit: a budget per minute per API key, in memory or shared through Redis. RateLimit-* headers on every authenticated response. */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/schema.ts';
import { AppError } from '../errors/app-error.ts';

/** Registers the limiter (unless the limit is 0). Only authenticated requests count, keyed by API key id. */
export async function registerRateLimit(app: FastifyInstance, config: Config): Promise<void> {
  if (config.rateLimitPerMinute === 0) return;
  // Loaded only when Redis is configured: the client costs start-up time and memory that a single node never uses.
  const { Redis } = config.rateLimitRedisUrl ? await import('ioredis') : { Redis: undefined };
  const redis =
    Redis && config.rateLimitRedisUrl
      ? new Redis(config.rateLimitRedisUrl, {
          maxRetriesPerRequest: 1,
          connectTimeout: 2000,
          lazyConnect: false,
        })
      : undefined;
  if (redis) app.addHook('onClose', async () => void (await redis.quit().catch(() => redis.disconnect())));
  await app.register(rateLimit, {
    global: true,
    max: config.rateLimitPerMinute,
    timeWindow: 60_000,
    redis,
    nameSpace: 'sealpost-rl:',
    skipOnError: false,
    enableDraftSpec: true,
    allowList: (req) => !req.principal,
    keyGenerator: (req) => req.principal?.keyId ?? req.ip,
    errorResponseBuilder: (_req, ctx) =>
      new AppError('rate_limited', `rate limit of ${ctx.max} requests per minute exceeded; retry in ${Math.ceil(ctx.ttl / 1000)} s`),
  });
}
