/** Webhook endpoint routes under every email prefix: `/webhook_endpoints[/<id>[/test|/replay|/attempts]]`. */
import { Type } from '@sinclair/typebox';
import type { TypedApp } from '../http/typed.ts';
import type { AppContext } from '../context.ts';
import { changeByKey, principalOf } from '../http/auth.ts';
import { errorResponses } from '../mail/error-body.ts';
import { EMAIL_PREFIXES } from '../mail/prefixes.ts';
import {
  Attempt,
  AttemptsQuery,
  Endpoint,
  EndpointBody,
  EndpointPatchBody,
  IdParam,
  ReplayBody,
  ReplayResponse,
} from './webhooks.schemas.ts';
import {
  attemptsOf,
  changeEndpoint,
  createEndpoint,
  endpointOf,
  endpointsOf,
  removeEndpoint,
} from './webhooks.service.ts';
import { replayEvents } from './webhooks.replay.ts';
import { sendTestEvent } from './test-event.ts';

const security: { [name: string]: string[] }[] = [{ bearer: [] }, { token: [] }];
const errors = errorResponses(400, 401, 403, 404, 409, 429);

/** Registers the webhook endpoint routes. */
export function webhookRoutes(app: TypedApp, ctx: AppContext): void {
  for (const prefix of EMAIL_PREFIXES) {
    registerEndpointCollection(app, ctx, prefix);
    registerEndpointItem(app, ctx, prefix);
    registerEndpointDeliveries(app, ctx, prefix);
  }
}

/** The schema fields every webhook route under `prefix` shares (bare `/v1` is hidden from the document). */
function commonSchema(prefix: string) {
  return { hide: prefix === '/v1', tags: ['webhooks'], security };
}

/** Registers the endpoints collection under one prefix: list and create. */
function registerEndpointCollection(app: TypedApp, ctx: AppContext, prefix: string): void {
  const base = `${prefix}/webhook_endpoints`;
  const common = commonSchema(prefix);
  app.get(
    base,
    {
      schema: {
        ...common,
        summary: 'List webhook endpoints',
        response: { 200: Type.Object({ webhook_endpoints: Type.Array(Endpoint) }), ...errors },
      },
    },
    async (req) => ({ webhook_endpoints: await endpointsOf(ctx, principalOf(req, 'email').customerId) }),
  );
  app.post(
    base,
    {
      schema: {
        ...common,
        summary: 'Create a webhook endpoint',
        body: EndpointBody,
        response: { 201: Endpoint, ...errors },
      },
    },
    async (req, reply) => {
      const p = principalOf(req, 'email');
      return reply.code(201).send(await createEndpoint(ctx, p.customerId, req.body, changeByKey(req, p)));
    },
  );
}

/** Registers one endpoint under one prefix: read, change and delete. */
function registerEndpointItem(app: TypedApp, ctx: AppContext, prefix: string): void {
  const base = `${prefix}/webhook_endpoints`;
  const common = commonSchema(prefix);
  app.get(
    `${base}/:id`,
    {
      schema: {
        ...common,
        summary: 'Read a webhook endpoint',
        params: IdParam,
        response: { 200: Endpoint, ...errors },
      },
    },
    (req) => endpointOf(ctx, principalOf(req, 'email').customerId, req.params.id),
  );
  app.patch(
    `${base}/:id`,
    {
      schema: {
        ...common,
        summary: 'Change a webhook endpoint: URL, events, signing key rotation, switching on and off',
        params: IdParam,
        body: EndpointPatchBody,
        response: { 200: Endpoint, ...errors },
      },
    },
    (req) => {
      const p = principalOf(req, 'email');
      return changeEndpoint(ctx, p.customerId, req.params.id, req.body, changeByKey(req, p));
    },
  );
  app.delete(
    `${base}/:id`,
    {
      schema: {
        ...common,
        summary: 'Delete a webhook endpoint with its deliveries and attempt log',
        params: IdParam,
        response: { 200: Type.Object({ id: Type.String(), deleted: Type.Boolean() }), ...errors },
      },
    },
    (req) => {
      const p = principalOf(req, 'email');
      return removeEndpoint(ctx, p.customerId, req.params.id, changeByKey(req, p));
    },
  );
}

/** Registers an endpoint's deliveries under one prefix: a test event, replays and the attempt log. */
function registerEndpointDeliveries(app: TypedApp, ctx: AppContext, prefix: string): void {
  const base = `${prefix}/webhook_endpoints`;
  const common = commonSchema(prefix);
  app.post(
    `${base}/:id/test`,
    {
      schema: {
        ...common,
        summary: 'Post a signed webhook_test event to the endpoint now, once, and answer with the attempt',
        params: IdParam,
        response: { 200: Attempt, ...errors },
      },
    },
    (req) => {
      const p = principalOf(req, 'email');
      return sendTestEvent(ctx, p.customerId, req.params.id, changeByKey(req, p));
    },
  );
  app.post(
    `${base}/:id/replay`,
    {
      schema: {
        ...common,
        summary: 'Post past events to the endpoint again (by time range or event ids)',
        params: IdParam,
        body: ReplayBody,
        response: { 200: ReplayResponse, ...errors },
      },
    },
    (req) => {
      const p = principalOf(req, 'email');
      return replayEvents(ctx, p.customerId, req.params.id, req.body, changeByKey(req, p));
    },
  );
  app.get(
    `${base}/:id/attempts`,
    {
      schema: {
        ...common,
        summary: 'The newest delivery attempts to the endpoint',
        params: IdParam,
        querystring: AttemptsQuery,
        response: { 200: Type.Object({ attempts: Type.Array(Attempt) }), ...errors },
      },
    },
    async (req) => ({
      attempts: await attemptsOf(ctx, principalOf(req, 'email').customerId, req.params.id, req.query.limit),
    }),
  );
}
