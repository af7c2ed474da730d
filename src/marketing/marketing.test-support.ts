/** Test helpers for the marketing routes: requests with an account's key, under the username prefix or the bare one. */
import { afterAll, beforeAll } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { createTestApp, type TestAccount, type TestApp, type TestContextOptions } from '../test/harness.ts';
import type { UuidTable } from './ids.repository.ts';
import { parseRef } from './ids.ts';
import { tokenUrls } from '../mail/tokens.ts';
import { seedDelivery, seedMailing, seedSend } from './analytics/analytics.test-support.ts';

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** A caller of one account's marketing API, sending `Token token=<key>` under `/v1/marketing/<username>` by default. */
export function marketingClient(t: TestApp, a: TestAccount, opts: { bare?: boolean; bearer?: boolean } = {}) {
  const prefix = opts.bare ? '/v1/marketing' : `/v1/marketing/${a.account.username}`;
  const authorization = opts.bearer ? `Bearer ${a.key}` : `Token token=${a.key}`;
  return (method: Method, path: string, payload?: unknown): Promise<LightMyRequestResponse> =>
    t.app.inject({
      method,
      url: `${prefix}${path}`,
      headers: { authorization, ...(payload !== undefined && { 'content-type': 'application/json' }) },
      ...(payload !== undefined && { payload: JSON.stringify(payload) }),
    });
}

/** A file's app, account and marketing caller: filled in place before its tests, so they may be named at the top level. */
export interface MarketingTestBed {
  t: TestApp;
  a: TestAccount;
  call: ReturnType<typeof marketingClient>;
}

/** Registers hooks that build an app with one account before the file's tests and close it after them. */
export function marketingTestBed(opts: TestContextOptions = {}): MarketingTestBed {
  const t = {} as TestApp;
  const a = {} as TestAccount;
  let client: ReturnType<typeof marketingClient> | undefined;
  beforeAll(async () => {
    Object.assign(t, await createTestApp(opts));
    Object.assign(a, await t.createAccount());
    client = marketingClient(t, a);
  });
  afterAll(() => t.close());
  return { t, a, call: (method, path, payload) => client!(method, path, payload) };
}

/** Creates a list and returns its id. */
export async function makeList(call: ReturnType<typeof marketingClient>, name: string): Promise<string> {
  const res = await call('POST', '/subscription_lists', { name });
  if (res.statusCode !== 200) throw new Error(`list create failed: ${res.body}`);
  return String(res.json().data.id);
}

/** Creates a subscriber and returns its id. */
export async function makeSubscriber(
  call: ReturnType<typeof marketingClient>,
  email: string,
  extra: Record<string, unknown> = {},
  listId?: string | number,
): Promise<string> {
  const res = await call('POST', '/subscribers', {
    subscriber: { email, ...extra },
    ...(listId !== undefined && { subscription_list_id: listId }),
  });
  if (res.statusCode !== 200) throw new Error(`subscriber create failed: ${res.body}`);
  return res.json().data.id as string;
}

/** The member counter of a list, read through the API. */
export async function countOf(call: ReturnType<typeof marketingClient>, listId: string): Promise<number> {
  const res = await call('GET', '/subscription_lists');
  const list = (
    res.json().data as { id: number; uuid: string; attributes: { subscriber_count: number } }[]
  ).find((l) => String(l.id) === listId || l.uuid === listId);
  return list?.attributes.subscriber_count ?? -1;
}

/** The default list's id. */
export async function defaultListId(call: ReturnType<typeof marketingClient>): Promise<string> {
  const res = await call('GET', '/subscription_lists');
  return String(
    (res.json().data as { id: number; attributes: { is_default: boolean } }[]).find(
      (l) => l.attributes.is_default,
    )!.id,
  );
}

/** The integer key of a row named by an id the API shows, integer or UUID (for tests that look at rows directly). */
export async function keyOf(t: TestApp, table: UuidTable, id: string | number): Promise<number> {
  const ref = parseRef(id);
  if (ref === null) throw new Error(`not an id: ${String(id)}`);
  const q = t.ctx.database.db.selectFrom(table).select('id');
  const row = await (
    'uuid' in ref ? q.where('uuid', '=', ref.uuid) : q.where('id', '=', ref.id)
  ).executeTakeFirstOrThrow();
  return Number(row.id);
}

/** The UUID the API shows for a row written directly by a test. */
export async function uuidOf(db: Kysely<DB>, table: UuidTable, id: number | bigint): Promise<string> {
  const row = await db
    .selectFrom(table)
    .select('uuid')
    .where('id', '=', Number(id))
    .executeTakeFirstOrThrow();
  return row.uuid;
}

/** An RFC 9562 UUID in its textual form, as marketing ids are shown. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * A new subscriber on a new list with a delivered campaign email, written straight into the database (nothing is
 * sent), and the paths of that email's unsubscribe link and preference page.
 */
export async function seedMailLinks(
  t: TestApp,
  a: TestAccount,
  call: ReturnType<typeof marketingClient>,
  email: string,
): Promise<{ list: string; subscriber: string; unsubscribe: string; preferences: string }> {
  const db = t.ctx.database.db;
  const customerId = a.account.customer_id;
  const list = await makeList(call, `List of ${email}`);
  const subscriber = await makeSubscriber(call, email, {}, list);
  const mailingId = await seedMailing(db, customerId, { subject: `News for ${email}` });
  const sendId = await seedSend(db, customerId, {
    mailingId,
    listName: `List of ${email}`,
    listId: await keyOf(t, 'subscription_lists', list),
  });
  const deliveryId = await seedDelivery(db, customerId, {
    sendId,
    mailingId,
    subscriberId: await keyOf(t, 'subscribers', subscriber),
    email,
  });
  const path = (url: string) => new URL(url).pathname;
  const { publicUrl, keys } = t.ctx;
  return {
    list,
    subscriber,
    unsubscribe: path(tokenUrls.marketing.unsubscribe(publicUrl, keys.tracking, deliveryId)),
    preferences: path(tokenUrls.marketing.preferences(publicUrl, keys.tracking, deliveryId)),
  };
}

/** What an unsubscribe or a preference page can change for a subscriber: its row, its lists and its deliveries. */
export async function subscriberState(t: TestApp, subscriber: string) {
  const db = t.ctx.database.db;
  const id = await keyOf(t, 'subscribers', subscriber);
  return {
    subscriber: await db.selectFrom('subscribers').selectAll().where('id', '=', id).executeTakeFirstOrThrow(),
    lists: await db
      .selectFrom('subscription_list_members')
      .selectAll()
      .where('subscriber_id', '=', id)
      .orderBy('list_id')
      .execute(),
    deliveries: await db
      .selectFrom('marketing_deliveries')
      .selectAll()
      .where('subscriber_id', '=', id)
      .orderBy('id')
      .execute(),
  };
}

/** Whether an answer is a 400 whose error body names the query or body parameter `field`. */
export function refusesParameter(res: LightMyRequestResponse, field: string): boolean {
  if (res.statusCode !== 400) return false;
  const errors = (res.json() as { errors?: { details?: string }[] }).errors ?? [];
  return errors.some(
    (e) => (e.details ?? '').startsWith(`${field}:`) || (e.details ?? '').startsWith(`${field} `),
  );
}
