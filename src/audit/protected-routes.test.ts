/**
 * Every route that returns protected content is audited. The router is walked (API routes and every console page):
 * a GET route whose path serves content, submissions, exports, attachments or files must declare `protectedContent`
 * (the audit action each read writes, or false for one that returns none), and an API route that declares an action
 * must write it through its route `audit` unless its service does. Then the captured message's parts are read and
 * each read is found in the audit trail.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteOptions } from 'fastify';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { createTestUser, signInClient, type ConsoleClient } from '../console/console.test-support.ts';
import { message, postJson, recipientsOf } from '../email/email.test-support.ts';
import { capturedAad } from '../email/captured.service.ts';

/** Paths that return protected content by their shape. */
const PROTECTED_SHAPE =
  /captured|\/content(\/|$)|submission|responses|export|attachments|\/files\/|download|^\/s\/:token/;
/** Routes whose service writes the entry (the route itself declares no `audit`). */
const SERVICE_AUDITED = new Set(['form.file_download', 'secure_message.read']);

const routes: { method: string; url: string; config: RouteOptions['config'] }[] = [];
let t: TestApp;
let a: TestAccount;
let owner: ConsoleClient;

beforeAll(async () => {
  t = await createTestApp({
    onRoute: (r) => {
      const route = r as RouteOptions;
      for (const method of [route.method].flat())
        routes.push({ method, url: route.url, config: route.config });
    },
  });
  a = await t.createAccount();
  owner = await signInClient(t.app, (await createTestUser(t, a.account.customer_id, 'owner')).email);
});
afterAll(() => t.close());

async function captureOne(): Promise<number> {
  const sent = await postJson(t, '/v1/email/messages', a.auth, {
    data: { message: message(`desk@${a.domain}`) },
  });
  const id = sent.json().sourceTrackingId as string;
  const [r] = await recipientsOf(t, id);
  const raw = [
    'From: desk@x',
    'Subject: Results',
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="b"',
    '',
    '--b',
    'Content-Type: text/html',
    '',
    '<p>Potassium 4.1</p>',
    '--b',
    'Content-Type: application/pdf; name="r.pdf"',
    'Content-Disposition: attachment; filename="r.pdf"',
    'Content-Transfer-Encoding: base64',
    '',
    Buffer.from('%PDF-1.4').toString('base64'),
    '--b--',
    '',
  ].join('\r\n');
  const row = await t.ctx.database.db
    .insertInto('captured_messages')
    .values({
      customer_id: a.account.customer_id,
      message_id: id,
      recipient_id: r!.id,
      envelope_from: `bounce@${a.domain}`,
      envelope_to: r!.address,
      raw: t.ctx.sealer.seal(raw, capturedAad(id, r!.id)),
      created_at: Date.now(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

describe('routes that return protected content', () => {
  it('every one is declared, with the audit action it writes', () => {
    const gets = routes.filter((r) => r.method === 'GET');
    expect(gets.some((r) => r.url.startsWith('/console/'))).toBe(true);
    const undeclared = gets
      .filter((r) => PROTECTED_SHAPE.test(r.url) && r.config?.protectedContent === undefined)
      .map((r) => r.url);
    expect(undeclared).toEqual([]);
  });

  it('an API route declaring an action writes it through its route audit or its service', () => {
    const unaudited = routes
      .filter((r) => typeof r.config?.protectedContent === 'string' && !r.url.startsWith('/console'))
      .filter(
        (r) =>
          r.config!.audit?.action !== r.config!.protectedContent &&
          !SERVICE_AUDITED.has(r.config!.protectedContent as string),
      )
      .map((r) => r.url);
    expect(unaudited).toEqual([]);
  });

  it("audits each read of a captured message's page, HTML and attachment", async () => {
    const id = await captureOne();
    const reads = async () =>
      (
        await t.ctx.database.db
          .selectFrom('audit_log')
          .select('detail')
          .where('customer_id', '=', a.account.customer_id)
          .where('action', '=', 'captured.content_read')
          .execute()
      ).map(
        (r) => ((typeof r.detail === 'string' ? JSON.parse(r.detail) : r.detail) as { part: string }).part,
      );
    for (const url of [
      `/console/captured/${id}`,
      `/console/captured/${id}/html`,
      `/console/captured/${id}/attachments/0`,
    ])
      expect((await owner.get(url)).statusCode, url).toBe(200);
    expect((await reads()).sort()).toEqual(['attachment 0', 'html', 'message']);
  });
});
