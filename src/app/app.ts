/** Assembles the HTTP server: logging and request ids, body rules, authentication, rate limit, errors, OpenAPI, and the route table. */
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.ts';
import { registerBodyRules } from '../http/body.ts';
import { registerAuth } from '../http/auth.ts';
import { registerErrorHandler } from '../http/error-handler.ts';
import { registerRateLimit } from '../http/rate-limit.ts';
import { registerInFlight } from '../http/in-flight.ts';
import { registerMetrics } from '../http/metrics.ts';
import { completeDocument } from './openapi-document.ts';
import { registerOpenApi, registerSwaggerUi } from './openapi-docs.ts';
import { GUIDE_BASE } from './guide.routes.ts';
import { queueNames } from './workers.ts';
import { registerPipelineMetrics } from '../http/pipeline-metrics.ts';
import { countSendsInProgress } from '../marketing/campaigns/sends.repository.ts';
import { registerRoutes } from './routes.ts';
import { registerRouteAudit } from '../audit/audit.http.ts';
import { safeNumberPlugin } from '../http/number-bounds.ts';
import { lazyCompilersFactory } from '../http/lazy-compilers.ts';
import type { TypedApp } from '../http/typed.ts';
import type { TxtResolver } from '../accounts/domains.service.ts';
import { loggableRequest } from '../http/log-redaction.ts';
import { AccessLog } from '../http/access-log.ts';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Options for building the app; tests may add routes of their own. */
export interface BuildOptions {
  extraRoutes?: (app: TypedApp) => void | Promise<void>;
  /** DNS for the console's domain checks; node's resolver by default (tests give their own). */
  dns?: TxtResolver;
  /** Called for every route as it is added (the route table snapshot reads them here). */
  onRoute?: (route: { method: string | string[]; url: string }) => void;
  /** Called as each request arrives, except health probes and metrics scrapes (the worker's pacer, when the worker
   * shares the event loop). */
  onRequest?: () => void;
}

/** Routes load balancers and monitoring call on a schedule. */
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);
const onSchedule = (route: string) => PROBES.has(route) || route.endsWith('/progress.json');

/** Builds the Fastify app over a context. The caller listens (or injects) and closes it. */
export async function buildApp(ctx: AppContext, opts: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: ctx.log.child({}, { serializers: { req: loggableRequest } }) as FastifyBaseLogger,
    logController: new AccessLog(),
    bodyLimit: ctx.config.bodyLimitBytes,
    trustProxy: ctx.config.trustProxy.length > 0 ? [...ctx.config.trustProxy] : false,
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    ajv: {
      customOptions: {
        coerceTypes: true,
        removeAdditional: false,
        allErrors: true,
      },
      onCreate: (ajv) => void safeNumberPlugin(ajv),
    },
    schemaController: { compilersFactory: lazyCompilersFactory() },
    return503OnClosing: true,
  }).withTypeProvider<TypeBoxTypeProvider>();
  if (opts.onRoute) app.addHook('onRoute', opts.onRoute);
  const { onRequest } = opts;
  if (onRequest)
    app.addHook('onRequest', (req, _reply, done) => {
      // Probes, scrapes and the console's live-progress polls come every second or few whatever the load; they are
      // not users waiting.
      if (!onSchedule(req.routeOptions.url ?? '')) onRequest();
      done();
    });

  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id);
    reply.header('x-content-type-options', 'nosniff');
  });
  registerErrorHandler(app);
  registerBodyRules(app);
  await app.register(multipart, { limits: { fileSize: 1_000_000, files: 2, fields: 10 } });
  registerAuth(app, ctx.database, ctx.authThrottle);
  registerRouteAudit(app, ctx.database);
  await registerRateLimit(app, ctx.config);
  registerInFlight(app, ctx.inFlight, ctx.config.bodyLimitBytes);
  const registry = registerMetrics(app, [ctx.authThrottle.metric]);
  registerPipelineMetrics(registry, ctx, () => countSendsInProgress(ctx.database.reader), queueNames(ctx));

  registerOpenApi(app, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Sealpost API',
        version: '1.0.0',
        description: 'Forms, transactional email and marketing.',
      },
      servers: [{ url: ctx.publicUrl }],
      components: {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description: 'Authorization: Bearer <API key>',
          },
          token: {
            type: 'apiKey',
            in: 'header',
            name: 'Authorization',
            description: 'Authorization: Token token=<API key>',
          },
        },
      },
    },
    transformObject: (doc) =>
      completeDocument('openapiObject' in doc ? doc.openapiObject : doc.swaggerObject, GUIDE_BASE),
  });
  await registerSwaggerUi(app, '/docs');
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await registerRoutes(app, ctx, registry, { dns: opts.dns });
  if (opts.extraRoutes) await opts.extraRoutes(app);
  return app;
}
