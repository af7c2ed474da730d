/** Prometheus metrics: one registry per app, process defaults plus request counts and durations by route. */
import { Counter, Histogram, Registry, collectDefaultMetrics, type Metric } from 'prom-client';
import type { FastifyInstance } from 'fastify';

/** Creates the registry and installs the request timing hook. */
export function registerMetrics(app: FastifyInstance, extra: Metric[] = []): Registry {
  const registry = new Registry();
  for (const metric of extra) registry.registerMetric(metric);
  collectDefaultMetrics({ register: registry, prefix: 'sealpost_' });
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({
    name: 'sealpost_http_requests_total',
    help: 'HTTP requests served',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'sealpost_http_request_duration_seconds',
    help: 'HTTP request duration',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  app.addHook('onResponse', async (req, reply) => {
    const labels = {
      method: req.method,
      route: req.routeOptions.url ?? 'unmatched',
      status: String(reply.statusCode),
    };
    requests.inc(labels);
    duration.observe(labels, reply.elapsedTime / 1000);
  });
  return registry;
}
