/** Drip campaign routes under both marketing prefixes: `/drip_campaigns[/<id>[/start|/pause]]`. */
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { TypedApp } from '../../http/typed.ts';
import type { AppContext } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { MARKETING_PREFIXES } from '../ids.ts';
import { Empty } from '../lists/lists.schemas.ts';
import {
  DripBody,
  DripFull,
  DripParams,
  DripShort,
  DripsQuery,
  PauseResponse,
  StartResponse,
} from './drips.schemas.ts';
import {
  changeDrip,
  createDrip,
  dripOf,
  dripsOf,
  pauseDrip,
  removeDrip,
  startDrip,
} from './drips.service.ts';
import { MARKETING_ERRORS, marketingSchemaBase } from '../routes-common.ts';

const full = { 200: Type.Object({ data: DripFull }), ...MARKETING_ERRORS };
const customer = (req: FastifyRequest): number => principalOf(req, 'marketing').customerId;

/** Registers the drip campaign routes. */
export function dripRoutes(app: TypedApp, ctx: AppContext): void {
  for (const prefix of MARKETING_PREFIXES) {
    registerDripEditing(app, ctx, prefix);
    registerDripRunning(app, ctx, prefix);
  }
}

/** Registers the design of drips under one prefix: list, create, read, change and delete. */
function registerDripEditing(app: TypedApp, ctx: AppContext, prefix: string): void {
  const base = `${prefix}/drip_campaigns`;
  const common = marketingSchemaBase(prefix);
  app.get(
    base,
    {
      schema: {
        ...common,
        summary: 'List drip campaigns, a page at a time',
        querystring: DripsQuery,
        response: { 200: Type.Object({ data: Type.Array(DripShort) }), ...MARKETING_ERRORS },
      },
    },
    async (req) => ({ data: await dripsOf(ctx, customer(req), req.query) }),
  );
  app.post(
    base,
    { schema: { ...common, summary: 'Create a drip campaign (a draft)', body: DripBody, response: full } },
    async (req) => ({
      data: await createDrip(ctx, customer(req), req.body.drip_campaign),
    }),
  );
  app.get(
    `${base}/:id`,
    {
      schema: {
        ...common,
        summary: 'One drip campaign with its graph',
        params: DripParams,
        response: full,
      },
    },
    async (req) => ({
      data: await dripOf(ctx, customer(req), req.params.id),
    }),
  );
  app.put(
    `${base}/:id`,
    {
      schema: {
        ...common,
        summary: 'Change a drip campaign',
        params: DripParams,
        body: DripBody,
        response: full,
      },
    },
    async (req) => ({ data: await changeDrip(ctx, customer(req), req.params.id, req.body.drip_campaign) }),
  );
  app.delete(
    `${base}/:id`,
    {
      schema: {
        ...common,
        summary: 'Delete a drip campaign that is not active',
        params: DripParams,
        response: { 200: Empty, ...MARKETING_ERRORS },
      },
    },
    (req) => removeDrip(ctx, customer(req), req.params.id),
  );
}

/** Registers start (or resume) and pause of a drip under one prefix. */
function registerDripRunning(app: TypedApp, ctx: AppContext, prefix: string): void {
  const base = `${prefix}/drip_campaigns`;
  const common = marketingSchemaBase(prefix);
  app.post(
    `${base}/:id/start`,
    {
      schema: {
        ...common,
        summary: 'Start (or resume) a drip campaign',
        params: DripParams,
        response: { 200: StartResponse, ...MARKETING_ERRORS },
      },
    },
    async (req) => ({ data: await startDrip(ctx, customer(req), req.params.id) }),
  );
  app.post(
    `${base}/:id/pause`,
    {
      schema: {
        ...common,
        summary: 'Pause an active drip campaign',
        params: DripParams,
        response: { 200: PauseResponse, ...MARKETING_ERRORS },
      },
    },
    async (req) => ({ data: await pauseDrip(ctx, customer(req), req.params.id) }),
  );
}
