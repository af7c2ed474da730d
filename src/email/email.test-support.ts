/** Shared pieces of the email surface tests: a message body builder, a JSON POST through inject, and row counts. */
import { afterAll, beforeAll } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { openContent } from '../mail/content.ts';

/** A minimal valid `data.message` from `from` (a bare address), with fields replaced or added by `extra`. */
export function message(from: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    recipients: ['rcpt@example.net'],
    headers: { subject: 'Hello', from },
    content: { 'text/plain': 'Hello world' },
    ...extra,
  };
}

/** An app with the account `acme` and a second account: filled in place before the tests, so they may be named at once. */
export interface EmailTestBed {
  t: TestApp;
  acme: TestAccount;
  other: TestAccount;
}

/** Registers hooks that build an app with the account `acmeName` and a second one (`otherName`, or a random name). */
export function emailTestBed(acmeName: string, otherName?: string): EmailTestBed {
  const t = {} as TestApp;
  const acme = {} as TestAccount;
  const other = {} as TestAccount;
  beforeAll(async () => {
    Object.assign(t, await createTestApp());
    Object.assign(acme, await t.createAccount({ username: acmeName }));
    Object.assign(other, await t.createAccount(otherName === undefined ? {} : { username: otherName }));
  });
  afterAll(() => t.close());
  return { t, acme, other };
}

/** How many messages an account has stored. */
export async function messageCount(t: TestApp, who: TestAccount): Promise<number> {
  const rows = await t.ctx.database.db
    .selectFrom('messages')
    .select('id')
    .where('customer_id', '=', who.account.customer_id)
    .execute();
  return rows.length;
}

/** POSTs a JSON body (given as a value, or as raw text) through inject. */
export function postJson(
  t: TestApp,
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** How many rows the message-related tables hold in all: what a refused request must leave unchanged. */
export async function rowCounts(t: TestApp): Promise<Record<string, number>> {
  const db = t.ctx.database.db;
  const out: Record<string, number> = {};
  for (const table of [
    'messages',
    'message_recipients',
    'message_links',
    'jobs',
    'idempotency_keys',
  ] as const) {
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    out[table] = Number(row.n);
  }
  return out;
}

/** The recipient rows of a message, in order. */
export function recipientsOf(t: TestApp, messageId: string) {
  return t.ctx.database.db
    .selectFrom('message_recipients')
    .selectAll()
    .where('message_id', '=', messageId)
    .orderBy('id')
    .execute();
}

/** A stored message row and its content, opened with the app's sealer. */
export async function storedMessage(t: TestApp, id: string) {
  const row = await t.ctx.database.db
    .selectFrom('messages')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return { row, content: openContent(t.ctx.sealer, id, row.content!) };
}
