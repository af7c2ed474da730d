/**
 * The served OpenAPI document (`app.swagger()`, `/openapi.json`) and the Swagger UI under `/docs`, with their code
 * loaded on first use (docs/decisions.md, "Start-up"). Both come from `@fastify/swagger` and `@fastify/swagger-ui`,
 * which together load over a hundred modules (the YAML library, a static file server, a glob matcher) that an idle
 * start never runs.
 *
 * The OpenAPI plugin is set up as its dynamic mode does it: its route collector hooks route registration from the
 * start, as it must see every route; the document builder is required on the first call of `app.swagger()`. Both
 * are the plugin's own files (`lib/util/add-hook.js`, `lib/util/resolve-swagger-function.js`, which its package does not
 * export by name): a release that moves them fails the OpenAPI tests (src/app/openapi-lint.test.ts) at once.
 *
 * The Swagger UI routes are declared at start with the URLs the UI plugin gives them; the first request to one builds
 * a small private Fastify server holding the UI plugin (its `swagger()` is the app's) and each request is answered by
 * that server through `inject`, its status, headers and bytes passed on. A file the UI does not have is the app's own
 * 404, as with the plugin mounted directly.
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type swaggerUiModule from '@fastify/swagger-ui';
import { onFirstUse } from '../on-first-use.ts';

type SwaggerFunction = FastifyInstance['swagger'];
/** What the OpenAPI plugin's route collector hands its document builder. */
interface Collected {
  routes: unknown[];
  Ref: unknown;
}

const addHook = onFirstUse<{ addHook: (app: FastifyInstance, opts: object) => Collected }>(
  '@fastify/swagger/lib/util/add-hook',
);
const documentBuilder = onFirstUse<{
  resolveSwaggerFunction: (opts: object, cache: object, routes: unknown[], ref: unknown) => SwaggerFunction;
}>('@fastify/swagger/lib/util/resolve-swagger-function');
const swaggerUi = onFirstUse<typeof swaggerUiModule>('@fastify/swagger-ui');

/** The OpenAPI plugin's defaults in dynamic mode (`@fastify/swagger/lib/mode/dynamic.js`). */
const DYNAMIC_DEFAULTS = {
  exposeRoute: false,
  hiddenTag: 'X-HIDDEN',
  hideUntagged: false,
  stripBasePath: true,
  openapi: null,
  swagger: {},
  transform: null,
  transformObject: null,
  decorator: 'swagger',
  refResolver: {
    buildLocalReference(
      json: { title?: string; $id?: string },
      _baseUri: unknown,
      _fragment: unknown,
      i: number,
    ) {
      if (!json.title && json.$id) json.title = json.$id;
      return `def-${i}`;
    },
  },
  convertConstToEnum: true,
};

/** Adds `app.swagger()`: the OpenAPI document of every route added from now on, built on its first call. */
export function registerOpenApi(app: FastifyInstance, options: FastifyDynamicSwaggerOptions): void {
  const opts = { ...DYNAMIC_DEFAULTS, ...options, mode: 'dynamic' };
  const { routes, Ref } = addHook().addHook(app, opts);
  let build: SwaggerFunction | undefined;
  const swagger = ((o?: { yaml?: boolean }) =>
    (build ??= documentBuilder().resolveSwaggerFunction(opts, { object: null, string: null }, routes, Ref))(
      o as { yaml: true },
    )) as SwaggerFunction;
  app.decorate('swagger', swagger);
}

/** Response headers of the UI server not passed on: the app's own server sets them for its connection. */
const CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'date']);

/** The private server holding the Swagger UI plugin, its `swagger()` the app's. */
async function uiServer(app: FastifyInstance, routePrefix: string): Promise<FastifyInstance> {
  const server = Fastify();
  const openApi = async (instance: FastifyInstance) => {
    instance.decorate('swagger', ((o?: { yaml?: boolean }) =>
      app.swagger(o as { yaml: true })) as SwaggerFunction);
  };
  // Marked as the OpenAPI plugin (what fastify-plugin does), which the UI plugin names as its dependency.
  Object.assign(openApi, {
    [Symbol.for('skip-override')]: true,
    [Symbol.for('fastify.display-name')]: '@fastify/swagger',
    [Symbol.for('plugin-meta')]: { name: '@fastify/swagger' },
  });
  await server.register(openApi);
  await server.register(swaggerUi().default, { routePrefix });
  await server.ready();
  return server;
}

/** Declares the Swagger UI routes under `routePrefix`, the UI itself loaded by the first request to one of them. */
export async function registerSwaggerUi(app: FastifyInstance, routePrefix: string): Promise<void> {
  let server: Promise<FastifyInstance> | undefined;
  const answer = async (req: FastifyRequest, reply: FastifyReply) => {
    server ??= uiServer(app, routePrefix).catch((err: unknown) => {
      server = undefined;
      throw err;
    });
    // Asked as GET: for HEAD the app's server sends the headers of the whole answer, as for any of its GET routes.
    const res = await (await server).inject({ method: 'GET', url: req.url, headers: req.headers });
    if (res.statusCode === 404) return reply.callNotFound();
    for (const [name, value] of Object.entries(res.headers)) {
      if (value !== undefined && !CONNECTION_HEADERS.has(name)) void reply.header(name, value);
    }
    void reply.code(res.statusCode);
    return res.rawPayload.length > 0 ? reply.send(res.rawPayload) : reply.send();
  };
  const route = { schema: { hide: true } };
  await app.register(
    async (docs) => {
      for (const url of ['/', '/static/index.html', '/static/swagger-initializer.js', '/json', '/yaml']) {
        docs.get(url, route, answer);
      }
      docs.route({ method: ['HEAD', 'GET'], url: '/static/*', ...route, handler: answer });
    },
    { prefix: routePrefix },
  );
}
