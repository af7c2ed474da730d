/**
 * The transactional delivery store: it opens a message's sealed content once for all its recipients, not once each,
 * and records the outcomes of a group commit together.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { countingCommitter } from '../test/committer.ts';
import { testFinish } from '../test/worker.ts';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import type { Sealer } from '../crypto/sealer.ts';
import { deliveryStore } from './delivery.service.ts';
import { message, postJson, recipientsOf } from './email.test-support.ts';

let t: TestApp;
let acme: TestAccount;

beforeAll(async () => {
  t = await createTestApp();
  acme = await t.createAccount();
});
afterAll(() => t.close());

it('opens the content of a 40-recipient message once while loading every recipient', async () => {
  const to = Array.from({ length: 20 }, (_, i) => `to${i}@example.org`);
  const cc = Array.from({ length: 20 }, (_, i) => `cc${i}@example.org`);
  const res = await postJson(t, '/v1/email/messages', acme.auth, {
    data: { message: message(`desk@${acme.domain}`, { recipients: to, cc }) },
  });
  expect(res.statusCode).toBe(200);
  const id = res.json<{ sourceTrackingId: string }>().sourceTrackingId;

  // The real sealer, with its decryptions of this message's content counted.
  let opened = 0;
  const sealer: Sealer = Object.create(t.ctx.sealer) as Sealer;
  sealer.open = (sealed, aad) => {
    if (aad === `message:${id}`) opened++;
    return t.ctx.sealer.open(sealed, aad);
  };
  const store = deliveryStore({ ...t.ctx, sealer });

  const recipients = await recipientsOf(t, id);
  expect(recipients).toHaveLength(40);
  const items = await Promise.all(recipients.map((r) => store.load(r.id)));
  expect(items.map((i) => i?.content?.subject)).toEqual(recipients.map(() => 'Hello'));
  expect(opened).toBe(1);
});

/** Accepts a one-part message to `recipients`; its id. */
async function messageTo(recipients: string[]): Promise<string> {
  const res = await postJson(t, '/v1/email/messages', acme.auth, {
    data: { message: message(`desk@${acme.domain}`, { recipients }) },
  });
  expect(res.statusCode).toBe(200);
  return res.json<{ sourceTrackingId: string }>().sourceTrackingId;
}

const delivered = () =>
  ({
    status: 'delivered',
    deliveryStatus: 'delivered',
    event: 'delivered',
    response: '250 ok',
    via: 'relay',
    tls: true,
    attempts: 1,
    at: Date.now(),
  }) as const;

it('says whether other recipients of the message are still to be delivered', async () => {
  const id = await messageTo(['one@example.org', 'two@example.org']);
  const store = deliveryStore(t.ctx);
  const [first, second] = await recipientsOf(t, id);
  expect((await store.load(first!.id))?.othersPending).toBe(true);
  const item = (await store.load(second!.id))!;
  expect(await store.record(item, delivered())).toBe(true);
  expect((await store.load(first!.id))?.othersPending).toBe(false);
});

it("records the outcomes of one commit together and ends their work rows in one statement, each only once it's committed", async () => {
  const id = await messageTo(['a@example.org', 'b@example.org', 'c@example.org']);
  const { committer, updates } = countingCommitter(t.ctx.database.db);
  const store = deliveryStore({ ...t.ctx, committer });
  const recipients = await recipientsOf(t, id);
  const items = await Promise.all(recipients.map((r) => store.load(r.id)));
  const finishes = recipients.map((_, i) => testFinish(i + 1));

  // Recorded in one turn of the loop, the three share one group commit.
  const recorded = await Promise.all(
    items.map((item, i) => store.record(item!, delivered(), finishes[i]!.finish)),
  );
  expect(recorded).toEqual([true, true, true]);
  expect(updates.get('jobs')).toBe(1);
  expect(finishes.map((f) => f.used())).toEqual([true, true, true]);
  expect((await recipientsOf(t, id)).map((r) => r.status)).toEqual(['delivered', 'delivered', 'delivered']);
});

it('records the others alone when ending one work row fails, and leaves that recipient and its row as they were', async () => {
  const id = await messageTo(['d@example.org', 'e@example.org', 'f@example.org']);
  const store = deliveryStore(t.ctx);
  const recipients = await recipientsOf(t, id);
  const items = await Promise.all(recipients.map((r) => store.load(r.id)));
  const finishes = [
    testFinish(1),
    testFinish(2, new Error('the work row could not be ended')),
    testFinish(3),
  ];

  const results = await Promise.allSettled(
    items.map((item, i) => store.record(item!, delivered(), finishes[i]!.finish)),
  );
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  expect(finishes.map((f) => f.used())).toEqual([true, false, true]);
  expect((await recipientsOf(t, id)).map((r) => r.status)).toEqual(['delivered', 'queued', 'delivered']);
});
