/**
 * Webhook endpoints of an account: creating, reading, changing (including signing-secret rotation and re-enabling),
 * deleting, and reading the attempt log. Used by the API, the console and the command line alike; every change is
 * written to the audit trail here, with the change, as made `by` (a key, a console user, the command line). Replay is
 * in webhooks.replay.ts.
 */
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors/app-error.ts';
import { record, type ChangeBy } from '../audit/audit.service.ts';
import type { Queryable } from '../db/types.ts';
import type { Updateable } from 'kysely';
import type { WebhookEndpointsTable } from '../db/types.ts';
import { WEBHOOK_EVENTS, isWebhookEvent } from './events.ts';
import { generateSecret } from './signature.ts';
import { sealSecret } from './secrets.ts';
import { checkTargetUrl, type HostLookup } from './url-safety.ts';
import {
  deleteEndpoint,
  findEndpoint,
  findEndpointById,
  insertEndpoint,
  listAttempts,
  listEndpoints,
  updateEndpoint,
  type EndpointRow,
} from './webhooks.repository.ts';

/** An endpoint as the API and the command line show it. The signing key appears only in the answer that set it. */
export interface WebhookEndpoint {
  id: string;
  target_url: string;
  events: string[];
  active: boolean;
  disabled_at: string | null;
  disabled_reason: string | null;
  failure_streak: number;
  /** True while a previous signing key still signs deliveries (during a rotation). */
  previous_signing_key_active: boolean;
  created_at: string;
  updated_at: string;
  signing_key?: string;
}

/** What creating an endpoint takes. */
export interface EndpointInput {
  target_url: string;
  events: string[];
  signing_key?: string | null;
  active?: boolean | null;
}

/** What changing an endpoint takes; absent (or null) fields stay as they are. */
export interface EndpointPatch {
  target_url?: string | null;
  events?: string[] | null;
  signing_key?: string | null;
  rotate_signing_key?: boolean | null;
  retire_previous_signing_key?: boolean | null;
  active?: boolean | null;
}

/** One attempt from the log, as shown. */
export interface WebhookAttempt {
  id: number;
  event_id: number;
  event_name: string;
  source_tracking_id: string;
  sealpost_event_id: string;
  attempt: number;
  status_code: number | null;
  latency_ms: number;
  response_excerpt: string | null;
  error: string | null;
  delivery_state: string;
  created_at: string;
}

/** Options of the calls that check a target URL (tests hand in their own resolver). */
export interface CheckOptions {
  lookup?: HostLookup;
}

const SIGNING_KEY = /^[\x21-\x7e]{16,256}$/;

const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());
const notFound = (id: string) =>
  new AppError('webhook.not_found', `no webhook endpoint with id ${JSON.stringify(id)}`);

function toEndpoint(row: EndpointRow, signingKey?: string): WebhookEndpoint {
  return {
    id: row.id,
    target_url: row.target_url,
    events: row.events.split(','),
    active: row.active === 1,
    disabled_at: iso(row.disabled_at),
    disabled_reason: row.disabled_reason,
    failure_streak: row.failure_streak,
    previous_signing_key_active: row.previous_signing_secret !== null,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
    ...(signingKey === undefined ? {} : { signing_key: signingKey }),
  };
}

/** Validates an event list: at least one, each one of the four names; returns them de-duplicated in the documented order. */
export function checkEvents(events: readonly string[]): string[] {
  const given = events.map((e) => e.trim()).filter(Boolean);
  const unknown = given.filter((e) => !isWebhookEvent(e));
  if (unknown.length > 0)
    throw new AppError(
      'webhook.invalid_events',
      `unknown event ${unknown.map((e) => JSON.stringify(e)).join(', ')}; events are ${WEBHOOK_EVENTS.join(', ')}`,
    );
  if (given.length === 0)
    throw new AppError('webhook.invalid_events', `give at least one event of ${WEBHOOK_EVENTS.join(', ')}`);
  return WEBHOOK_EVENTS.filter((e) => given.includes(e));
}

function checkSigningKey(key: string): string {
  if (!SIGNING_KEY.test(key))
    throw new AppError(
      'webhook.invalid_signing_key',
      'signing_key must be 16 to 256 printable ASCII characters without spaces',
    );
  return key;
}

/** Writes the audit entry of an endpoint change (never the signing key). */
function audit(
  db: Queryable,
  customerId: number,
  by: ChangeBy,
  action: string,
  id: string,
  detail: Record<string, unknown>,
): Promise<void> {
  return record(db, {
    accountId: customerId,
    actor: by.actor,
    action,
    target: `webhook:${id}`,
    ip: by.ip,
    detail,
  });
}

const checkUrl = (ctx: AppContext, url: string, opts: CheckOptions) =>
  checkTargetUrl(url, { allowPrivate: ctx.config.webhookAllowPrivateTargets, lookup: opts.lookup });

/** An endpoint of the account, or webhook.not_found. */
export async function ownEndpoint(ctx: AppContext, customerId: number, id: string): Promise<EndpointRow> {
  const row = await findEndpoint(ctx.database.db, customerId, id);
  if (!row) throw notFound(id);
  return row;
}

/** Creates an endpoint; its signing key (given or generated) is in the answer and never shown again. */
export async function createEndpoint(
  ctx: AppContext,
  customerId: number,
  input: EndpointInput,
  by: ChangeBy,
  opts: CheckOptions = {},
): Promise<WebhookEndpoint> {
  const events = checkEvents(input.events);
  const signingKey = input.signing_key ? checkSigningKey(input.signing_key) : generateSecret();
  const targetUrl = await checkUrl(ctx, input.target_url, opts);
  const id = `we_${randomBytes(12).toString('hex')}`;
  const now = Date.now();
  await ctx.database.db.transaction().execute(async (trx) => {
    await insertEndpoint(trx, {
      id,
      customer_id: customerId,
      target_url: targetUrl,
      events: events.join(','),
      signing_secret: sealSecret(ctx.sealer, id, signingKey),
      previous_signing_secret: null,
      active: input.active === false ? 0 : 1,
      disabled_at: null,
      disabled_reason: null,
      streak_started_at: null,
      created_at: now,
      updated_at: now,
    });
    await audit(trx, customerId, by, 'webhook.create', id, {
      target_url: targetUrl,
      events,
      active: input.active !== false,
    });
  });
  return toEndpoint((await findEndpointById(ctx.database.db, id))!, signingKey);
}

/** The endpoints of an account. */
export async function endpointsOf(ctx: AppContext, customerId: number): Promise<WebhookEndpoint[]> {
  return (await listEndpoints(ctx.database.db, customerId)).map((r) => toEndpoint(r));
}

/** One endpoint of an account. */
export async function endpointOf(ctx: AppContext, customerId: number, id: string): Promise<WebhookEndpoint> {
  return toEndpoint(await ownEndpoint(ctx, customerId, id));
}

/**
 * Changes an endpoint. A new signing key (given, or generated with rotate_signing_key) becomes the primary and the old
 * one keeps signing beside it until retire_previous_signing_key; `active: true` re-enables a disabled endpoint.
 */
export async function changeEndpoint(
  ctx: AppContext,
  customerId: number,
  id: string,
  patch: EndpointPatch,
  by: ChangeBy,
  opts: CheckOptions = {},
): Promise<WebhookEndpoint> {
  const row = await ownEndpoint(ctx, customerId, id);
  const now = Date.now();
  const set: Updateable<WebhookEndpointsTable> = { updated_at: now };
  if (patch.events !== undefined && patch.events !== null) set.events = checkEvents(patch.events).join(',');
  let newKey: string | undefined;
  if (patch.signing_key) newKey = checkSigningKey(patch.signing_key);
  else if (patch.rotate_signing_key) newKey = generateSecret();
  if (patch.target_url) set.target_url = await checkUrl(ctx, patch.target_url, opts);
  if (newKey !== undefined) {
    set.signing_secret = sealSecret(ctx.sealer, id, newKey);
    set.previous_signing_secret = row.signing_secret;
  }
  if (patch.retire_previous_signing_key) set.previous_signing_secret = null;
  if (patch.active === false) set.active = 0;
  if (patch.active === true)
    Object.assign(set, {
      active: 1,
      disabled_at: null,
      disabled_reason: null,
      failure_streak: 0,
      streak_started_at: null,
    });
  const given = Object.entries(patch)
    .filter(([, v]) => v !== undefined && v !== null && v !== false)
    .map(([k]) => k);
  const detail: Record<string, unknown> = { fields: patch.active === false ? [...given, 'active'] : given };
  if (set.events !== undefined) detail.events = set.events.split(',');
  if (set.target_url !== undefined) detail.target_url = set.target_url;
  if (patch.active !== undefined && patch.active !== null) detail.active = patch.active;
  await ctx.database.db.transaction().execute(async (trx) => {
    await updateEndpoint(trx, id, set);
    await audit(trx, customerId, by, 'webhook.update', id, detail);
  });
  return toEndpoint((await findEndpointById(ctx.database.db, id))!, newKey);
}

/** Deletes an endpoint with its deliveries and attempt log. Without an account (the command line) any endpoint may be named. */
export async function removeEndpoint(
  ctx: AppContext,
  customerId: number | undefined,
  id: string,
  by: ChangeBy,
): Promise<{ id: string; deleted: true }> {
  const row =
    customerId === undefined
      ? await findEndpointById(ctx.database.db, id)
      : await findEndpoint(ctx.database.db, customerId, id);
  if (!row) throw notFound(id);
  await ctx.database.db.transaction().execute(async (trx) => {
    await deleteEndpoint(trx, id);
    await audit(trx, row.customer_id, by, 'webhook.delete', id, { target_url: row.target_url });
  });
  return { id, deleted: true };
}

/** The newest attempts to an endpoint (at most `limit`), newest first. */
export async function attemptsOf(
  ctx: AppContext,
  customerId: number,
  id: string,
  limit: number,
): Promise<WebhookAttempt[]> {
  await ownEndpoint(ctx, customerId, id);
  const rows = await listAttempts(ctx.database.db, id, limit);
  return rows.map((a) => ({
    id: a.id,
    event_id: Number(a.event_id),
    event_name: a.event_name,
    source_tracking_id: a.message_id,
    sealpost_event_id: a.uid,
    attempt: a.attempt,
    status_code: a.status_code,
    latency_ms: a.latency_ms,
    response_excerpt: a.response_excerpt,
    error: a.error,
    delivery_state: a.state,
    created_at: iso(a.created_at)!,
  }));
}
