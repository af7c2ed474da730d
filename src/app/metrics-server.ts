/**
 * The HTTP listener of a process without the api role: `/metrics` (the pipeline counters this process moves, which
 * no api node sees), `/healthz` and `/readyz`, on SEALPOST_METRICS_PORT.
 */
import Fastify from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.ts';
import { registerErrorHandler } from '../http/error-handler.ts';
import { registerMetrics } from '../http/metrics.ts';
import { queueNames } from './workers.ts';
import { registerPipelineMetrics } from '../http/pipeline-metrics.ts';
import { countSendsInProgress } from '../marketing/campaigns/sends.repository.ts';
import { healthRoutes } from './health.routes.ts';

/** Starts the listener; resolves with its address and a way to close it. */
export async function startMetricsServer(
  ctx: AppContext,
  port: number,
): Promise<{ address: string; close(): Promise<void> }> {
  const app = Fastify({ logger: false }).withTypeProvider<TypeBoxTypeProvider>();
  registerErrorHandler(app);
  const registry = registerMetrics(app);
  registerPipelineMetrics(registry, ctx, () => countSendsInProgress(ctx.database.reader), queueNames(ctx));
  healthRoutes(app, ctx, registry);
  const address = await app.listen({ host: ctx.config.httpHost, port });
  return { address, close: () => app.close() };
}
