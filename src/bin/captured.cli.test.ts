/** `sealpost captured list|show` run as a user runs them, against a database the test filled with a captured message. */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../test/harness.ts';
import { runSealpost } from './cli.test-support.ts';
import { createAccount } from '../accounts/accounts.service.ts';
import { capturedAad } from '../email/captured.service.ts';

describe('sealpost captured', () => {
  const masterKey = randomBytes(32).toString('base64');
  const raw = 'From: desk@clinic.example\r\nTo: pat@example.net\r\nSubject: Results\r\n\r\nAll fine.\r\n';
  let t: TestContext;
  let capturedId: number;

  const sealpost = (args: string[]) => runSealpost(t.scratch.url, masterKey, args);

  beforeAll(async () => {
    t = await createTestContext({ config: { masterKey } });
    const db = t.ctx.database.db;
    const account = await createAccount(db, 'clinic');
    const now = Date.now();
    await db
      .insertInto('messages')
      .values({
        id: 'b6f1d7d2-93c4-4a8e-8f43-0a8f3b1c2d3e',
        customer_id: account.customer_id,
        domain_id: null,
        header_message_id: '<b6f1d7d2@clinic.example>',
        from_addr: 'desk@clinic.example',
        source: 'api',
        lane: 'transactional',
        allow_non_tls: 0,
        force_secure: 0,
        open_tracking: 0,
        link_tracking: 0,
        custom_headers: '{}',
        content: null,
        content_purged_at: null,
        recipient_count: 1,
        pending_count: 0,
        created_at: now,
        finished_at: now,
      })
      .execute();
    const r = await db
      .insertInto('message_recipients')
      .values({
        message_id: 'b6f1d7d2-93c4-4a8e-8f43-0a8f3b1c2d3e',
        customer_id: account.customer_id,
        address: 'pat@example.net',
        name: null,
        kind: 'to',
        status: 'delivered',
        delivery_status: 'delivered',
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const c = await db
      .insertInto('captured_messages')
      .values({
        customer_id: account.customer_id,
        message_id: 'b6f1d7d2-93c4-4a8e-8f43-0a8f3b1c2d3e',
        recipient_id: r.id,
        envelope_from: 'bounce@clinic.example',
        envelope_to: 'pat@example.net',
        raw: t.ctx.sealer.seal(raw, capturedAad('b6f1d7d2-93c4-4a8e-8f43-0a8f3b1c2d3e', r.id)),
        created_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    capturedId = c.id;
  });
  afterAll(() => t.close());

  it('lists the captured messages of an account, one line each', async () => {
    const r = await sealpost(['captured', 'list', '--account', 'clinic']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${capturedId}\t`);
    expect(r.stdout).toContain('b6f1d7d2-93c4-4a8e-8f43-0a8f3b1c2d3e');
    expect(r.stdout).toContain('bounce@clinic.example -> pat@example.net');
  });

  it('lists as JSON with the raw message, filtered by sourceTrackingId', async () => {
    const hit = await sealpost([
      'captured',
      'list',
      '--account',
      'clinic',
      '--source-tracking-id',
      'b6f1d7d2-93c4-4a8e-8f43-0a8f3b1c2d3e',
      '--json',
    ]);
    expect(hit.code, hit.stderr).toBe(0);
    expect(JSON.parse(hit.stdout)).toEqual([
      expect.objectContaining({ id: capturedId, recipient: 'pat@example.net', raw }),
    ]);
    const miss = await sealpost([
      'captured',
      'list',
      '--account',
      'clinic',
      '--source-tracking-id',
      'nope',
      '--json',
    ]);
    expect(JSON.parse(miss.stdout)).toEqual([]);
  });

  it('shows one captured message, and only its raw MIME with --raw', async () => {
    const shown = await sealpost(['captured', 'show', String(capturedId)]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('envelope to:       pat@example.net');
    expect(shown.stdout).toContain('Subject: Results');
    const onlyRaw = await sealpost(['captured', 'show', String(capturedId), '--raw']);
    expect(onlyRaw.stdout).toBe(raw);
  });

  it('exits 1 with a message for an unknown id or account', async () => {
    const id = await sealpost(['captured', 'show', '999999']);
    expect(id.code).toBe(1);
    expect(id.stderr).toContain('no captured message with id 999999');
    const account = await sealpost(['captured', 'list', '--account', 'nobody']);
    expect(account.code).toBe(1);
  });
});
