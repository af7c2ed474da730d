/** The single statement that writes a batch of accepted mail on PostgreSQL: every row lands with its own content. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../test/harness.ts';
import { TEST_DIALECT } from '../test/database.ts';
import { createAccount } from '../accounts/accounts.service.ts';
import {
  ACCEPTED_STATEMENT_MAX_MESSAGES,
  insertAcceptedStatement,
  type NewMessage,
  type NewRecipient,
} from './messages.repository.ts';
import { acceptedWriter } from './accepted-writer.ts';

const NOW = 1_800_000_000_000;

describe.skipIf(TEST_DIALECT !== 'postgres')('insertAcceptedStatement (PostgreSQL)', () => {
  let t: TestContext;
  let customerId: number;
  beforeAll(async () => {
    t = await createTestContext();
    customerId = (await createAccount(t.ctx.database.db, 'statement')).customer_id;
  });
  afterAll(() => t.close());

  const message = (id: string, content: string | null): NewMessage => ({
    id,
    customer_id: customerId,
    domain_id: null,
    header_message_id: `<${id}@example.org>`,
    from_addr: 'clinic@example.org',
    source: 'api',
    lane: 'transactional',
    allow_non_tls: 0,
    force_secure: 0,
    open_tracking: 1,
    link_tracking: 1,
    custom_headers: '{}',
    content,
    recipient_count: 1,
    pending_count: 1,
    created_at: NOW,
    finished_at: null,
    subject_hash: null,
  });
  const recipient = (messageId: string, address: string, status: 'queued' | 'failed'): NewRecipient => ({
    message_id: messageId,
    customer_id: customerId,
    address,
    name: null,
    kind: 'to',
    status,
    delivery_status: status === 'queued' ? 'processing' : 'suppressed',
    last_response: null,
    updated_at: NOW,
  });

  it('pairs each message with its own content and queues work for queued recipients only', async () => {
    const contents = [
      'v1.first',
      null,
      'quotes " and \\ backslashes, a newline\n, a tab\t, ünïcødé and {"json":[1]}',
      'x'.repeat(100_000),
    ];
    const ids = contents.map((_, i) => `0194f7a0-0000-7000-8000-00000000000${i}`);
    // Handed over in an order that is neither the ids' nor the contents' list order.
    const order = [2, 0, 3, 1];
    await insertAcceptedStatement(t.ctx.database.db, {
      messages: order.map((i) => message(ids[i]!, contents[i] ?? null)),
      recipients: [
        recipient(ids[0]!, 'a@example.org', 'queued'),
        recipient(ids[1]!, 'b@example.org', 'failed'),
        recipient(ids[2]!, 'c@example.org', 'queued'),
        recipient(ids[3]!, 'd@example.org', 'queued'),
      ],
      links: [{ message_id: ids[0]!, position: 0, target_url: 'https://example.org/a' }],
      queue: 'email.test',
    });
    const db = t.ctx.database.db;
    const stored = await db.selectFrom('messages').select(['id', 'content']).orderBy('id').execute();
    expect(stored).toEqual(ids.map((id, i) => ({ id, content: contents[i] })));
    const links = await db.selectFrom('message_links').select(['message_id', 'target_url']).execute();
    expect(links).toEqual([{ message_id: ids[0], target_url: 'https://example.org/a' }]);
    const jobs = await db.selectFrom('jobs').select(['queue', 'payload', 'state']).orderBy('id').execute();
    const recipients = await db
      .selectFrom('message_recipients')
      .select(['id', 'address'])
      .where('status', '=', 'queued')
      .orderBy('id')
      .execute();
    expect(recipients.map((r) => r.address)).toEqual(['a@example.org', 'c@example.org', 'd@example.org']);
    expect(jobs).toEqual(
      recipients.map((r) => ({ queue: 'email.test', payload: `{"recipientId":${r.id}}`, state: 'queued' })),
    );
  });
});

describe('the statement for a batch of accepted mail', () => {
  it('is not used for more messages than its parameters carry: the batch is written in a transaction', () => {
    const many = Array.from({ length: ACCEPTED_STATEMENT_MAX_MESSAGES + 1 }, () => ({}));
    // No database is needed to decline; one that was asked would fail the call.
    const declined = acceptedWriter.statement!(undefined as never, [{ plans: many as never }]);
    expect(declined).toBeUndefined();
  });
});
