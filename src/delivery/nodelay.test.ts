/**
 * Outgoing SMTP sockets send small segments at once (TCP_NODELAY). Without it, the end-of-data marker waits for the
 * peer's delayed acknowledgement (about 40 ms on Linux), so every message on a connection stalls on it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startSmtpSink, type SmtpSink } from '../test/smtp-sink.ts';
import { createRelayTransport } from './relay.ts';
import type { Transport } from './transport.ts';

const REF = { reference: 'm', recipientId: 1, customerId: 1 };
const SETTINGS = { heloName: 'sealpost.test', timeoutMs: 5000, tlsVerify: false, maxConnections: 1 };
const MESSAGES = 15;
/** Below the 40 ms a delayed acknowledgement costs, far above what a message on loopback needs. */
const STALL_MS = 30;

const sinks: SmtpSink[] = [];
const relays: Transport[] = [];

/** A relay transport to a fresh loopback sink. */
async function relayTo(tls: 'starttls' | 'none'): Promise<Transport> {
  const sink = await startSmtpSink({ tls });
  sinks.push(sink);
  const relay = createRelayTransport(sink.url, SETTINGS);
  relays.push(relay);
  return relay;
}

afterAll(async () => {
  await Promise.all(relays.map((r) => r.close()));
  await Promise.all(sinks.map((s) => s.close()));
});

function raw(n: number): Buffer {
  const body = `line of a clinic letter ${n}\r\n`.repeat(60);
  return Buffer.from(`From: a@sealpost.test\r\nTo: b@example.org\r\nSubject: ${n}\r\n\r\n${body}`);
}

/** The median time of `count` sequential sends. */
async function medianSendMs(relay: Transport, requireTls: boolean): Promise<number> {
  const times: number[] = [];
  for (let n = 0; n < MESSAGES; n++) {
    const started = performance.now();
    const outcome = await relay.send({
      from: 'a@sealpost.test',
      to: 'b@example.org',
      raw: raw(n),
      requireTls,
      ref: REF,
    });
    expect(outcome.result).toBe('accepted');
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
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
    'send message after message on $session without waiting for delayed acknowledgements',
    async ({ tls, requireTls }) => {
      const relay = await relayTo(tls);
      // The first message opens the session; the median is of the messages that follow on it.
      await relay.send({ from: 'a@sealpost.test', to: 'b@example.org', raw: raw(-1), requireTls, ref: REF });
      expect(await medianSendMs(relay, requireTls)).toBeLessThan(STALL_MS);
    },
  );
});
