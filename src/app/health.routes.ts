/** Operational routes: liveness, readiness, Prometheus metrics. */
import { Type } from '@sinclair/typebox';
import type { Registry } from 'prom-client';
import type { TypedApp } from '../http/typed.ts';
import type { AppContext } from '../context.ts';
import { pendingMigrations } from '../db/migrate.ts';
import { ping } from '../db/ping.ts';
import { AppError } from '../errors/app-error.ts';
import { EMAIL_PREFIXES } from '../mail/prefixes.ts';

const Status = Type.Object({
  status: Type.String(),
  reasons: Type.Optional(Type.Array(Type.String())),
});

/** The API's status as clients ask for it before sending; the same for every caller and every username. */
const ApiStatus = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  data: Type.String(),
});

/**
 * Registers `GET <email prefix>/status` (the Ruby client's `api_status` calls `/v1/<api_username>/status`). It needs no
 * key and says nothing of any account: 200 while the database answers, 503 when it does not. Anyone may call it, so
 * one database check serves every call of the same second.
 */
function apiStatusRoutes(app: TypedApp, ctx: AppContext): void {
  let last: { at: number; up: Promise<boolean> } | undefined;
  const databaseUp = (): Promise<boolean> => {
    const now = Date.now();
    if (!last || now - last.at >= 1000)
      last = {
        at: now,
        up: ping(ctx.database.db).then(
          () => true,
          () => false,
        ),
      };
    return last.up;
  };
  for (const prefix of EMAIL_PREFIXES)
    app.get(
      `${prefix}/status`,
      {
        schema: {
          hide: prefix === '/v1',
          tags: ['email'],
          summary: 'Status of the API (no key needed)',
          response: { 200: ApiStatus, 503: ApiStatus },
        },
      },
      async (_req, reply) =>
        (await databaseUp())
          ? { status: 'ok' as const, data: 'Service OK' }
          : reply.code(503).send({ status: 'unavailable', data: 'Service unavailable' }),
    );
}

/** Registers /healthz, /readyz, /metrics and the API status under the email prefixes. */
export function healthRoutes(app: TypedApp, ctx: AppContext, registry: Registry): void {
  apiStatusRoutes(app, ctx);
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['operations'],
        summary: 'The process is alive',
        response: { 200: Status },
      },
      // A constant answer: probes right after start do not wait for the response serializer compiler to load.
      serializerCompiler: () => JSON.stringify,
    },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['operations'],
        summary: 'The database is reachable and the schema is current',
        response: { 200: Status, 503: Status },
      },
    },
    async (_req, reply) => {
      const reasons: string[] = [];
      try {
        await ping(ctx.database.db);
        const pending = await pendingMigrations(ctx.database);
        if (pending.length > 0) reasons.push(`pending migrations: ${pending.join(', ')}`);
      } catch (err) {
        reasons.push(`database unreachable: ${(err as Error).message}`);
      }
      if (reasons.length > 0) return reply.code(503).send({ status: 'not ready', reasons });
      return { status: 'ready' };
    },
  );

  app.get(
    '/metrics',
    {
      schema: {
        tags: ['operations'],
        summary: 'Prometheus metrics',
        produces: ['text/plain'],
      },
    },
    async (req, reply) => {
      const token = ctx.config.metricsToken;
      if (token && req.headers.authorization !== `Bearer ${token}`)
        throw new AppError('auth.invalid_key', 'metrics token required');
      return reply.type(registry.contentType).send(await registry.metrics());
    },
  );
}
