/**
 * Pooled SMTP sessions against real SMTP servers on loopback ports: reuse, the per-destination limit, a refused
 * message, a session the server dropped, and the TLS policy of each message.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { startSmtpSink, type SinkOptions, type SmtpSink } from '../test/smtp-sink.ts';
import { relayTarget } from './relay.ts';
import { sessionPools, type SessionPools } from './session-pool.ts';

const SETTINGS = { heloName: 'sealpost.test', timeoutMs: 5000, tlsVerify: false };
const ENVELOPE = { from: 'clinic@sealpost.test', to: 'patient@example.org' };

let sink: SmtpSink;
let pools: SessionPools;

async function poolTo(opts: SinkOptions, maxConnections = 4) {
  sink = await startSmtpSink(opts);
  pools = sessionPools(SETTINGS, maxConnections);
  const target = relayTarget(sink.url);
  return (n: number, requireTls = true) =>
    pools.send(target, ENVELOPE, Buffer.from(`Subject: ${n}\r\n\r\nletter ${n}\r\n`), requireTls);
}

afterEach(async () => {
  pools.close();
  await sink.close();
});

describe('session pools', () => {
  it('send message after message over one session, which a refused message does not end', async () => {
    const send = await poolTo({
      reply: (n) => (n === 2 ? { code: 550, message: 'mailbox unknown' } : { code: 250 }),
    });
    const outcomes = [];
    for (let n = 1; n <= 4; n++) outcomes.push(await send(n));
    expect(outcomes.map((o) => [o.result, o.tls])).toEqual([
      ['accepted', true],
      ['permanent', true],
      ['accepted', true],
      ['accepted', true],
    ]);
    expect(outcomes[1]!.response).toContain('550');
    expect(sink.connections()).toBe(1);
    expect(sink.received.map((m) => m.raw.toString().split('\r\n')[0])).toEqual([
      'Subject: 1',
      'Subject: 3',
      'Subject: 4',
    ]);
  });

  it('open no more sessions with one destination than its limit, and share them among the messages', async () => {
    const send = await poolTo({ replyDelayMs: 30 }, 2);
    const outcomes = await Promise.all(Array.from({ length: 8 }, (_, n) => send(n)));
    expect(outcomes.every((o) => o.result === 'accepted')).toBe(true);
    expect(sink.received).toHaveLength(8);
    expect(sink.peakConnections()).toBe(2);
    expect(sink.connections()).toBe(2);
  });

  it('replace a session the server dropped while it sat idle, and the next message still goes', async () => {
    const send = await poolTo({});
    expect((await send(1)).result).toBe('accepted');
    sink.dropConnections();
    await sleep(50);
    const next = await send(2);
    expect(next).toMatchObject({ result: 'accepted', tls: true });
    expect(sink.connections()).toBe(2);
    expect(sink.received).toHaveLength(2);
  });

  it('send a message once more over a new session when the one it took turns out to be dropped', async () => {
    const send = await poolTo({});
    expect((await send(1)).result).toBe('accepted');
    // Sent at once: the pool cannot have seen the drop yet, so the message goes out on the dead session first.
    sink.dropConnections();
    expect(await send(2)).toMatchObject({ result: 'accepted', tls: true });
    expect(sink.connections()).toBe(2);
    expect(sink.received).toHaveLength(2);
  });

  it('send mail that may go in clear over one plain session when the server offers no TLS, and never mail that requires it', async () => {
    const send = await poolTo({ tls: 'none' });
    expect(await send(1, false)).toMatchObject({ result: 'accepted', tls: false });
    expect(await send(2, false)).toMatchObject({ result: 'accepted', tls: false });
    expect(sink.connections()).toBe(1);
    expect((await send(3, true)).result).toBe('tls-unavailable');
    expect(sink.received.map((m) => m.secure)).toEqual([false, false]);
  });

  it('send mail that requires TLS over a session that negotiated it, never over a plain one', async () => {
    const send = await poolTo({});
    expect(await send(1, true)).toMatchObject({ result: 'accepted', tls: true });
    // Mail that may go in clear takes the TLS session too.
    expect(await send(2, false)).toMatchObject({ result: 'accepted', tls: true });
    expect(sink.connections()).toBe(1);
    expect(sink.received.map((m) => m.secure)).toEqual([true, true]);
  });
});
