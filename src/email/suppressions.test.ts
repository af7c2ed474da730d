/**
 * The suppression list: a hard bounce lists the address with its reason and time, later sends to it are not attempted
 * (the receipt says suppressed), a policy refusal lists nothing, the list is managed through the API and the command
 * line, and an account can turn it off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Worker } from '../jobs/worker.ts';
import { runSealpost } from '../bin/cli.test-support.ts';
import { TEST_DIALECT } from '../test/database.ts';
import { TEST_BY, createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { startSmtpSink, type SmtpSink } from '../test/smtp-sink.ts';
import {
  receiptOf,
  sendMessage,
  startDeliveryWorker,
  waitUntilFinished,
} from '../delivery/delivery.test-support.ts';
import { setSuppressionList } from '../accounts/suppressions.service.ts';

describe(`suppression list (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let acct: TestAccount;
  let sink: SmtpSink;

  /** Runs `fn` with a delivery worker relaying to `relayUrl` (one worker at a time, so the relay is known). */
  async function withWorker<T>(relayUrl: string, fn: () => Promise<T>): Promise<T> {
    const w: Worker = startDeliveryWorker(t, { relayUrl });
    try {
      return await fn();
    } finally {
      await w.stop(2000);
    }
  }

  beforeAll(async () => {
    sink = await startSmtpSink({ tls: 'none' });
    t = await createTestApp({
      config: { transport: 'relay', relayUrl: sink.url, deliveryRetrySchedule: [200] },
    });
    acct = await t.createAccount();
  });
  afterAll(async () => {
    await sink?.close();
    await t?.close();
  });

  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: acct.auth });

  it('lists a hard-bounced address with reason and time, and skips it on the next send', async () => {
    // The relay answers 550 5.1.1 for the first message only.
    const replies = [{ code: 550, message: '5.1.1 <gone@patients.example>: no such mailbox' }];
    const bouncer = await startSmtpSink({ tls: 'none', reply: (n) => replies[n - 1] ?? { code: 250 } });
    await withWorker(bouncer.url, async () =>
      waitUntilFinished(t, await sendMessage(t, acct, { recipients: ['Gone@patients.example'] })),
    );
    const list = await get('/v1/email/suppressions');
    expect(list.statusCode, list.body).toBe(200);
    const [entry] = list.json().suppressions;
    expect(entry).toMatchObject({
      address: 'gone@patients.example',
      reason: 'hard_bounce',
      detail: expect.stringContaining('550'),
    });
    expect(Date.parse(entry.created_at)).toBeGreaterThan(Date.now() - 60_000);

    const before = sink.dataCount();
    const second = await sendMessage(t, acct, {
      recipients: ['gone@patients.example', 'here@patients.example'],
    });
    await withWorker(sink.url, () => waitUntilFinished(t, second));
    const receipt = await receiptOf(t, acct, second);
    const status = Object.fromEntries(
      receipt.data.message.message_deliveries.map((d) => [d.recipient, d.status.deliveryStatus]),
    );
    expect(status['gone@patients.example']).toBe('suppressed');
    expect(status['here@patients.example']).toMatch(/^delivered/);
    expect(sink.dataCount() - before).toBe(1);
    expect(sink.received.at(-1)!.to).toEqual(['here@patients.example']);
    await bouncer.close();
  });

  it('reads one address, deletes it, and then attempts mail to it again', async () => {
    const one = await get('/v1/email/suppressions/GONE@patients.example');
    expect(one.statusCode).toBe(200);
    expect(one.json().reason).toBe('hard_bounce');
    const del = await t.app.inject({
      method: 'DELETE',
      url: '/v1/email/suppressions/gone@patients.example',
      headers: acct.auth,
    });
    expect(del.statusCode, del.body).toBe(200);
    const gone = await get('/v1/email/suppressions/gone@patients.example');
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toMatchObject({ error_code: 'email.suppression_not_found' });
    const again = await sendMessage(t, acct, { recipients: ['gone@patients.example'] });
    await withWorker(sink.url, () => waitUntilFinished(t, again));
    expect(
      (await receiptOf(t, acct, again)).data.message.message_deliveries[0]!.status.deliveryStatus,
    ).toMatch(/^delivered/);
  });

  it('does not list an address refused for policy (5.7.x), nor any address when the account turned the list off', async () => {
    const replies = [
      { code: 550, message: '5.7.1 TLS required' },
      { code: 550, message: '5.1.1 no such mailbox' },
    ];
    const bouncer = await startSmtpSink({ tls: 'none', reply: (n) => replies[n - 1] ?? { code: 250 } });
    try {
      await withWorker(bouncer.url, async () => {
        await waitUntilFinished(t, await sendMessage(t, acct, { recipients: ['policy@patients.example'] }));
        await setSuppressionList(t.ctx, acct.account.customer_id, false, TEST_BY);
        await waitUntilFinished(t, await sendMessage(t, acct, { recipients: ['off@patients.example'] }));
      });
    } finally {
      await bouncer.close();
      await setSuppressionList(t.ctx, acct.account.customer_id, true, TEST_BY);
    }
    expect((await get('/v1/email/suppressions')).json().suppressions).toEqual([]);
    const switched = await t.ctx.database.db
      .selectFrom('audit_log')
      .select(['detail', 'actor_id'])
      .where('action', '=', 'settings.suppression_list')
      .where('customer_id', '=', acct.account.customer_id)
      .orderBy('id')
      .execute();
    expect(switched.map((r) => [r.actor_id, JSON.parse(r.detail)])).toEqual([
      ['test', { suppression_list: false }],
      ['test', { suppression_list: true }],
    ]);
  });

  it('is managed from the command line', async () => {
    const run = (args: string[]) => runSealpost(t.scratch.url, t.ctx.config.masterKey!, args);
    const username = acct.account.username;
    const added = await run([
      'suppression',
      'add',
      '--account',
      username,
      '--address',
      'Manual@Patients.example',
      '--json',
    ]);
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({ address: 'manual@patients.example', reason: 'manual' });
    const listed = await run(['suppression', 'list', '--account', username, '--json']);
    expect(JSON.parse(listed.stdout).map((s: { address: string }) => s.address)).toEqual([
      'manual@patients.example',
    ]);
    expect(
      (await run(['suppression', 'remove', '--account', username, '--address', 'manual@patients.example']))
        .code,
    ).toBe(0);
    const missing = await run([
      'suppression',
      'remove',
      '--account',
      username,
      '--address',
      'manual@patients.example',
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('is not on the suppression list');
    // Four runs of the command, each a process of its own.
  }, 90_000);
});
