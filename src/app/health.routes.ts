/** Operational routes: liveness, readiness, Prometheus metrics. */
import { Type } from '@sinclair/typebox';
import type { Registry } from 'prom-client';
import type { TypedApp } from '../http/typed.ts';
import type { AppContext } from '../context.ts';
import { pendingMigrations } from '../db/migrate.ts';
import { ping } from '../db/ping.ts';
import { AppError } from '../errors/app-error.ts';

const Status = Type.Object({
  status: Type.String(),
  reasons: Type.Optional(Type.Array(Type.String())),
});

/** Registers /healthz, /readyz and /metrics. */
export function healthRoutes(app: TypedApp, ctx: AppContext, registry: Registry): void {
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
