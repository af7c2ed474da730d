/**
 * Pooled SMTP sessions against real SMTP servers on loopback ports: reuse, the per-destination limit, a refused
 * message, a session the server dropped, and the TLS policy of each message.
 */
import net from 'node:net';
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

describe('session pools', () => {
  afterEach(async () => {
    pools.close();
    await sink.close();
  });

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

/**
 * A plain SMTP server that offers PIPELINING and answers the envelope only once MAIL FROM, RCPT TO and DATA have all
 * arrived: a client that waits for each reply before its next command never gets one. `rcpt` is the reply to RCPT TO.
 */
async function pipeliningServer(rcpt: (n: number) => string) {
  const received: string[] = [];
  const server = net.createServer((socket) => {
    let buffer = '';
    let pending: string[] = [];
    let inData = false;
    let n = 0;
    let rcptOk = true;
    socket.write('220 pipelining.test ESMTP\r\n');
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('binary');
      let at: number;
      while ((at = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            socket.write('250 queued\r\n');
          } else received.push(line);
          continue;
        }
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO') socket.write('250-pipelining.test\r\n250 PIPELINING\r\n');
        else if (verb === 'RSET') socket.write('250 reset\r\n');
        else if (verb === 'QUIT') socket.end('221 bye\r\n');
        else if (verb === 'MAIL' || verb === 'RCPT') pending.push(verb);
        else if (verb === 'DATA') {
          n++;
          const rcptReply = rcpt(n);
          rcptOk = rcptReply.startsWith('2');
          socket.write(`250 sender ok\r\n${rcptReply}\r\n`);
          socket.write(rcptOk ? '354 go ahead\r\n' : '554 no valid recipients\r\n');
          inData = rcptOk;
          pending = [];
        } else socket.write('502 not here\r\n');
      }
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    target: relayTarget(`smtp://127.0.0.1:${port}`),
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('pipelining', () => {
  it('sends the envelope and DATA without waiting for the replies between them, and carries on after a refused recipient', async () => {
    const server = await pipeliningServer((n) => (n === 2 ? '550 mailbox unknown' : '250 recipient ok'));
    const pooled = sessionPools({ ...SETTINGS, timeoutMs: 2000 }, 1);
    try {
      const send = (n: number) =>
        pooled.send(server.target, ENVELOPE, Buffer.from(`Subject: ${n}\r\n\r\nletter ${n}\r\n`), false);
      const outcomes = [await send(1), await send(2), await send(3)];
      expect(outcomes.map((o) => o.result)).toEqual(['accepted', 'permanent', 'accepted']);
      expect(outcomes[1]!.response).toContain('550 mailbox unknown');
      expect(server.received.filter((l) => l.startsWith('Subject:'))).toEqual(['Subject: 1', 'Subject: 3']);
    } finally {
      pooled.close();
      await server.close();
    }
  });
});
