/**
 * The per-key API rate limit: a budget per minute per API key, in memory or shared through Redis. Every authenticated
 * request costs one unit, taken in the first hook after authentication, so an exhausted key is refused before its
 * body is read or the database is touched; a route may cost more once its body is known (a send costs one unit per
 * recipient), taken before its handler runs. A request refused for what it carried (400, 413, 415, 422) gives its
 * units back, up to the limit's worth of such refusals per window; past that they spend like any other request, so
 * invalid requests cannot go unbounded. RateLimit-* headers on every authenticated response.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../config/schema.ts';
import { AppError } from '../errors/app-error.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The rate-limit units this request has taken so far (given back when it is refused for what it carried). */
    rateUnits?: number;
  }
  interface FastifyContextConfig {
    /** The units a request of this route costs in all, from its parsed body (one when absent); at least one. */
    rateCost?: (body: unknown) => number;
  }
}

const WINDOW_MS = 60_000;
/** The longest a refusal is held, and how much longer each further refusal in a window is held than the one before. */
const MAX_REFUSAL_DELAY_MS = 1000;
const REFUSAL_DELAY_STEP_MS = 10;

/**
 * How long the `over`th refusal of an exhausted key in a window is held before it is answered: the first few at once,
 * then longer, up to a second, so that a client that ignores Retry-After and keeps asking on many connections gets a
 * few answers a second per connection instead of taking the server's time from every other account.
 */
export function refusalDelayMs(over: number): number {
  return Math.min(MAX_REFUSAL_DELAY_MS, Math.max(0, over - 1) * REFUSAL_DELAY_STEP_MS);
}
/** Answers that refuse a request for what it carried: they give the request's units back. */
const REFUSED = new Set([400, 413, 415, 422]);

/** A window's count after a take, and when the window ends. */
interface Taken {
  count: number;
  resetAt: number;
}

/** Where counts live: this process's memory, or Redis shared by every node. */
interface Store {
  take(key: string, units: number, now: number): Promise<Taken>;
}

function memoryStore(): Store {
  const windows = new Map<string, Taken>();
  return {
    take: async (key, units, now) => {
      let w = windows.get(key);
      if (!w || w.resetAt <= now) {
        if (windows.size > 100_000) for (const [k, v] of windows) if (v.resetAt <= now) windows.delete(k);
        w = { count: 0, resetAt: now + WINDOW_MS };
        windows.set(key, w);
      }
      w.count += units;
      return { ...w };
    },
  };
}

const TAKE_SCRIPT = `local c = redis.call('INCRBY', KEYS[1], ARGV[1])
local t = redis.call('PTTL', KEYS[1])
if t < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) t = tonumber(ARGV[2]) end
return {c, t}`;

function redisStore(redis: Redis): Store {
  return {
    take: async (key, units, now) => {
      const [count, ttl] = (await redis.eval(TAKE_SCRIPT, 1, `sealpost-rl:${key}`, units, WINDOW_MS)) as [
        number,
        number,
      ];
      return { count, resetAt: now + ttl };
    },
  };
}

/** Registers the limiter (unless the limit is 0). Only authenticated requests count, keyed by API key id. */
export async function registerRateLimit(app: FastifyInstance, config: Config): Promise<void> {
  const max = config.rateLimitPerMinute;
  if (max === 0) return;
  app.decorateRequest('rateUnits', undefined);
  // Loaded only when Redis is configured: the client costs start-up time and memory that a single node never uses.
  const client = config.rateLimitRedisUrl ? await import('ioredis') : undefined;
  const redis =
    client && config.rateLimitRedisUrl
      ? new client.Redis(config.rateLimitRedisUrl, {
          maxRetriesPerRequest: 1,
          connectTimeout: 2000,
          lazyConnect: false,
        })
      : undefined;
  if (redis) app.addHook('onClose', async () => void (await redis.quit().catch(() => redis.disconnect())));
  const store = redis ? redisStore(redis) : memoryStore();

  async function spend(req: FastifyRequest, reply: FastifyReply, units: number): Promise<void> {
    const keyId = req.principal!.keyId;
    const now = Date.now();
    const { count, resetAt } = await store.take(keyId, units, now);
    req.rateUnits = (req.rateUnits ?? 0) + units;
    const seconds = Math.max(1, Math.ceil((resetAt - now) / 1000));
    void reply.header('ratelimit-limit', String(max));
    void reply.header('ratelimit-remaining', String(Math.max(0, max - count)));
    void reply.header('ratelimit-reset', String(seconds));
    if (count > max) {
      await sleep(refusalDelayMs(count - max));
      throw new AppError(
        'rate_limited',
        `rate limit of ${max} requests per minute exceeded; retry in ${seconds} s`,
        {
          headers: { 'retry-after': String(seconds) },
        },
      );
    }
  }

  /** Gives a refused request's units back, unless the key has had a limit's worth of refusals in this window. */
  async function giveBack(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const keyId = req.principal!.keyId;
    const units = req.rateUnits ?? 0;
    const now = Date.now();
    if ((await store.take(`${keyId}:refused`, 1, now)).count > max) return;
    const { count } = await store.take(keyId, -units, now);
    void reply.header('ratelimit-remaining', String(Math.max(0, max - count)));
  }

  app.addHook('onRequest', async (req, reply) => {
    if (req.principal) await spend(req, reply, 1);
  });
  app.addHook('onSend', async (req, reply) => {
    if (req.principal && req.rateUnits && REFUSED.has(reply.statusCode)) await giveBack(req, reply);
  });
  app.addHook('preHandler', async (req, reply) => {
    const cost = req.routeOptions.config?.rateCost;
    if (!req.principal || !cost) return;
    const extra = Math.floor(cost(req.body)) - 1;
    if (extra > 0) await spend(req, reply, extra);
  });
}

/** The recipients a send body names (recipients, cc and bcc of its one or many messages), as its rate cost. */
export function recipientCost(body: unknown): number {
  const data = (body as { data?: { message?: unknown; messages?: unknown } } | undefined)?.data;
  const messages = Array.isArray(data?.messages) ? data.messages : [data?.message];
  let total = 0;
  for (const m of messages) {
    const msg = m as { recipients?: unknown; cc?: unknown; bcc?: unknown } | undefined;
    for (const list of [msg?.recipients, msg?.cc, msg?.bcc]) if (Array.isArray(list)) total += list.length;
  }
  return Math.max(1, total);
}
