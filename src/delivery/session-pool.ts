/**
 * Pools of TLS sessions with next hops (a smarthost, or each MX host), so that mail that requires TLS pays for the
 * handshake once per connection, not once per message. A pool per destination opens on first use, keeps at most
 * `maxConnections` sessions (the per-destination limit), and closes after a quiet minute. Past MAX_POOLS, a new
 * destination closes the least recently used idle pool; pools in use stay, bounded by the deliveries running at once.
 * Lifecycle: sessionPools() per transport; send() per message; close() when the transport closes.
 */
import type * as Nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool/index.js';
import {
  noDelaySocket,
  oneLine,
  outcomeOfError,
  sessionOptions,
  type Envelope,
  type SendOutcome,
  type SmtpSettings,
  type SmtpTarget,
} from './smtp-client.ts';
import { onFirstUse } from '../on-first-use.ts';

const nodemailer = onFirstUse<typeof Nodemailer>('nodemailer');

const POOL_IDLE_MS = 60_000;
/** Destinations whose pools are kept at once. */
const MAX_POOLS = 256;

/** Pools of TLS sessions, one per destination. */
export interface SessionPools {
  /**
   * Sends one message over a pooled session with `target` that negotiated TLS. Never throws. `requireTls` is the
   * message's policy, which decides how a failure reads (see outcomeOfError).
   */
  send(target: SmtpTarget, envelope: Envelope, raw: Buffer, requireTls?: boolean): Promise<SendOutcome>;
  close(): void;
}

/** Creates the pools of one transport; each destination gets at most `maxConnections` sessions. */
export function sessionPools(settings: SmtpSettings, maxConnections: number): SessionPools {
  const pools = new Map<string, IdleClosingPool>();
  const poolOf = (target: SmtpTarget): IdleClosingPool => {
    const key = `${target.host}|${target.port}|${target.secure}|${target.servername ?? ''}`;
    let pool = pools.get(key);
    if (pool) {
      // Re-inserted so the map's order is the order of last use.
      pools.delete(key);
      pools.set(key, pool);
      return pool;
    }
    if (pools.size >= MAX_POOLS) {
      const idle = [...pools].find(([, p]) => p.idle());
      if (idle) {
        idle[1].close();
        pools.delete(idle[0]);
      }
    }
    pool = idleClosingPool(target, settings, maxConnections);
    pools.set(key, pool);
    return pool;
  };
  return {
    async send(target, envelope, raw, requireTls = true) {
      try {
        const info = await poolOf(target).use((t) =>
          t.sendMail({ envelope: { from: envelope.from, to: [envelope.to] }, raw }),
        );
        return { result: 'accepted', response: oneLine(info.response ?? '250 accepted'), tls: true };
      } catch (err) {
        return outcomeOfError(err, requireTls, true);
      }
    },
    close() {
      for (const pool of pools.values()) pool.close();
      pools.clear();
    },
  };
}

interface IdleClosingPool {
  use<T>(fn: (t: Transporter<SMTPPool.SentMessageInfo>) => Promise<T>): Promise<T>;
  idle(): boolean;
  close(): void;
}

/** A nodemailer pool that requires TLS, created on demand and closed once nothing used it for POOL_IDLE_MS. */
function idleClosingPool(
  target: SmtpTarget,
  settings: SmtpSettings,
  maxConnections: number,
): IdleClosingPool {
  let transporter: Transporter<SMTPPool.SentMessageInfo> | undefined;
  let inFlight = 0;
  let idleTimer: NodeJS.Timeout | undefined;
  const close = () => {
    clearTimeout(idleTimer);
    transporter?.close();
    transporter = undefined;
  };
  const open = () => {
    const t = nodemailer().createTransport({
      ...sessionOptions(target, settings, true),
      auth: target.auth,
      pool: true,
      maxConnections,
      maxMessages: Infinity,
      getSocket: noDelaySocket,
    } as SMTPPool.Options);
    // A pooled connection that drops is replaced on the next send; its error is reported through that send.
    t.on('error', () => undefined);
    return t;
  };
  return {
    async use(fn) {
      clearTimeout(idleTimer);
      transporter ??= open();
      inFlight++;
      try {
        return await fn(transporter);
      } finally {
        if (--inFlight === 0) idleTimer = setTimeout(close, POOL_IDLE_MS).unref();
      }
    },
    idle: () => inFlight === 0,
    close,
  };
}
