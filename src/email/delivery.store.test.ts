/** The transactional delivery store opens a message's sealed content once for all its recipients, not once each. */
import { afterAll, beforeAll, expect, it } from 'vitest';
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
  sealer.openText = (sealed, aad) => {
    if (aad === `message:${id}`) opened++;
    return t.ctx.sealer.openText(sealed, aad);
  };
  const store = deliveryStore({ ...t.ctx, sealer });

  const recipients = await recipientsOf(t, id);
  expect(recipients).toHaveLength(40);
  const items = await Promise.all(recipients.map((r) => store.load(r.id)));
  expect(items.map((i) => i?.content?.subject)).toEqual(recipients.map(() => 'Hello'));
  expect(opened).toBe(1);
});

it('says whether other recipients of the message are still to be delivered', async () => {
  const res = await postJson(t, '/v1/email/messages', acme.auth, {
    data: { message: message(`desk@${acme.domain}`, { recipients: ['one@example.org', 'two@example.org'] }) },
  });
  const id = res.json<{ sourceTrackingId: string }>().sourceTrackingId;
  const store = deliveryStore(t.ctx);
  const [first, second] = await recipientsOf(t, id);
  expect((await store.load(first!.id))?.othersPending).toBe(true);
  const item = (await store.load(second!.id))!;
  const outcome = {
    status: 'delivered',
    deliveryStatus: 'delivered',
    event: 'delivered',
    response: '250 ok',
    via: 'relay',
    tls: true,
    attempts: 1,
    at: Date.now(),
  } as const;
  expect(await store.record(item, outcome)).toBe(true);
  expect((await store.load(first!.id))?.othersPending).toBe(false);
});
