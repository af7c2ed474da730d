/**
 * Outgoing SMTP sockets send small segments at once (TCP_NODELAY). Without it, the end-of-data marker waits for the
 * peer's delayed acknowledgement (about 40 ms on Linux), so every message on a connection stalls on it.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { startSmtpSink, type SmtpSink } from '../test/smtp-sink.ts';
import { createRelayTransport } from './relay.ts';
import type { Transport } from './transport.ts';

const REF = { reference: 'm', recipientId: 1, customerId: 1 };
const SETTINGS = { heloName: 'sealpost.test', timeoutMs: 5000, tlsVerify: false, maxConnections: 1 };
const MESSAGES = 5;

const sinks: SmtpSink[] = [];
const relays: Transport[] = [];

/** A relay transport to a fresh loopback sink. */
async function relayTo(tls: 'starttls' | 'none'): Promise<{ relay: Transport; sink: SmtpSink }> {
  const sink = await startSmtpSink({ tls });
  sinks.push(sink);
  const relay = createRelayTransport(sink.url, SETTINGS);
  relays.push(relay);
  return { relay, sink };
}

afterAll(async () => {
  await Promise.all(relays.map((r) => r.close()));
  await Promise.all(sinks.map((s) => s.close()));
});

function raw(n: number): Buffer {
  const body = `line of a clinic letter ${n}\r\n`.repeat(60);
  return Buffer.from(`From: a@sealpost.test\r\nTo: b@example.org\r\nSubject: ${n}\r\n\r\n${body}`);
}

/** The TCP sockets this process opens from now until the test ends. */
function socketsOpened(): Socket[] {
  const sockets: Socket[] = [];
  const onSocket = (message: unknown) => void sockets.push((message as { socket: Socket }).socket);
  subscribe('net.client.socket', onSocket);
  onTestFinished(() => void unsubscribe('net.client.socket', onSocket));
  return sockets;
}

/** Whether TCP_NODELAY is set on `socket`: Node.js offers no getter, and keeps it under a symbol of its own. */
function noDelay(socket: Socket): boolean {
  const key = Object.getOwnPropertySymbols(socket).find((s) => s.description === 'kSetNoDelay');
  if (!key) throw new Error('this Node.js keeps no TCP_NODELAY state on its sockets to check');
  return (socket as unknown as Record<symbol, unknown>)[key] === true;
}

describe('outgoing SMTP sockets', () => {
  it.each([
    { session: 'a pooled TLS session', tls: 'starttls' as const, requireTls: true },
    {
      session: 'a pooled plain session, for mail that may go in clear',
      tls: 'none' as const,
      requireTls: false,
    },
  ])(
    'send message after message on $session over a socket with TCP_NODELAY set',
    async ({ tls, requireTls }) => {
      const sockets = socketsOpened();
      const { relay, sink } = await relayTo(tls);
      for (let n = 0; n < MESSAGES; n++) {
        const outcome = await relay.send({
          from: 'a@sealpost.test',
          to: 'b@example.org',
          raw: raw(n),
          requireTls,
          ref: REF,
        });
        expect(outcome.result).toBe('accepted');
      }
      expect(sink.received.map((m) => m.secure)).toEqual(Array(MESSAGES).fill(requireTls));
      // Every connection the sink took came from a socket that sends small segments at once.
      expect(sockets.length).toBe(sink.connections());
      expect(sockets.map(noDelay)).toEqual(Array(sink.connections()).fill(true));
    },
  );
});
