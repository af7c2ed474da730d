/**
 * Transports: how a rendered message leaves. `capture` keeps it (the default of a fresh install), `relay` hands it to a
 * smarthost, `mx` delivers to the recipient domain's MX hosts. All three answer one `send` with a SendOutcome.
 * Lifecycle: built once per worker from configuration; close() releases pooled connections.
 */
import { hostname } from 'node:os';
import type { Config } from '../config/schema.ts';
import type { DeliveryItem } from './model.ts';
import type { SendOutcome, SmtpSettings } from './smtp-client.ts';
import { createRelayTransport } from './relay.ts';
import { createMxTransport, type MxResolver } from './mx.ts';

/** One message for one recipient. */
export interface SendRequest {
  from: string;
  to: string;
  raw: Buffer;
  /** Refuse to send unless the next hop speaks TLS (the outcome is then `tls-unavailable`). */
  requireTls: boolean;
  /** Which delivery this is, for transports that store rather than send. */
  ref: Pick<DeliveryItem, 'reference' | 'recipientId' | 'customerId'>;
}

/** A way out. */
export interface Transport {
  readonly name: 'capture' | 'relay' | 'mx';
  send(req: SendRequest): Promise<SendOutcome>;
  close(): Promise<void>;
}

/** Where the capture transport keeps messages. */
export interface CaptureStore {
  /** Keeps the raw message of one delivery, replacing an earlier copy of the same delivery. */
  save(req: SendRequest): Promise<void>;
}

/** What building a transport may need besides configuration. */
export interface TransportDeps {
  capture: CaptureStore;
  /** DNS for the mx transport; node's resolver by default. */
  resolver?: MxResolver;
  /** How many deliveries the lane using this transport runs at once; its relay pool holds at most that many too. */
  laneConcurrency: number;
}

type TransportConfig = Pick<
  Config,
  | 'transport'
  | 'relayUrl'
  | 'relayConnections'
  | 'tlsVerify'
  | 'mxPort'
  | 'mxHostConcurrency'
  | 'heloName'
  | 'deliveryTimeoutMs'
>;

/**
 * Builds the configured transport for one lane. Each lane builds its own, so transactional and marketing mail never
 * wait for each other's connections. Throws when the configuration is incomplete (relay without a URL).
 */
export function createTransport(config: TransportConfig, deps: TransportDeps): Transport {
  const settings: SmtpSettings = {
    heloName: config.heloName || hostname(),
    timeoutMs: config.deliveryTimeoutMs,
    tlsVerify: config.tlsVerify,
    // A lane's deliveries spend most of their time off the connection (loading, composing, recording), so more of
    // them run at once than the relay is asked to hold connections for.
    maxConnections: Math.min(deps.laneConcurrency, config.relayConnections),
  };
  switch (config.transport) {
    case 'capture':
      return createCaptureTransport(deps.capture);
    case 'relay':
      if (!config.relayUrl) throw new Error('the relay transport needs SEALPOST_RELAY_URL');
      return createRelayTransport(config.relayUrl, settings);
    case 'mx':
      return createMxTransport(settings, config.mxPort, deps.resolver, config.mxHostConcurrency);
  }
}

/** Keeps every message in the capture store; nothing leaves the server. */
export function createCaptureTransport(store: CaptureStore): Transport {
  return {
    name: 'capture',
    async send(req) {
      await store.save(req);
      return { result: 'accepted', response: '250 captured', tls: null };
    },
    close: async () => undefined,
  };
}
