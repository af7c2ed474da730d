/**
 * The relay transport: every message goes to one smarthost, `smtp://` (STARTTLS) or `smtps://` (implicit TLS), with
 * optional AUTH from the URL. Messages that require TLS share a pool of connections that all negotiated TLS, so the
 * common case pays for a handshake once per connection, not once per message. Messages that may go in clear (allowNonTLS,
 * secure notifications) use a session of their own, where TLS is used when offered and the outcome says whether it was.
 * Lifecycle: the pool opens on first use and closes after a quiet minute or on close().
 */
import type * as Nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool/index.js';
import type { Transport } from './transport.ts';
import {
  noDelaySocket,
  oneLine,
  outcomeOfError,
  sendOnce,
  sessionOptions,
  type SmtpSettings,
  type SmtpTarget,
} from './smtp-client.ts';
import { onFirstUse } from '../on-first-use.ts';

const nodemailer = onFirstUse<typeof Nodemailer>('nodemailer');

const POOL_IDLE_MS = 60_000;

/** Parses a relay URL into a session target. */
export function relayTarget(url: string): SmtpTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`SEALPOST_RELAY_URL is not a URL: ${url.replace(/\/\/[^@/]*@/, '//***@')}`);
  }
  if (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:')
    throw new Error('SEALPOST_RELAY_URL must start with smtp:// (STARTTLS) or smtps:// (implicit TLS)');
  const secure = parsed.protocol === 'smtps:';
  const user = decodeURIComponent(parsed.username);
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: parsed.port ? Number(parsed.port) : secure ? 465 : 587,
    secure,
    auth: user ? { user, pass: decodeURIComponent(parsed.password) } : undefined,
  };
}

/** The relay transport for `url`. */
export function createRelayTransport(url: string, settings: SmtpSettings): Transport {
  const target = relayTarget(url);
  const pool = idleClosingPool(target, settings);
  return {
    name: 'relay',
    async send(req) {
      if (!req.requireTls && !target.secure)
        return sendOnce(target, settings, { from: req.from, to: req.to }, req.raw, false);
      try {
        const info = await pool.use((t) =>
          t.sendMail({ envelope: { from: req.from, to: [req.to] }, raw: req.raw }),
        );
        return { result: 'accepted', response: oneLine(info.response ?? '250 accepted'), tls: true };
      } catch (err) {
        return outcomeOfError(err, req.requireTls, true);
      }
    },
    close: async () => pool.close(),
  };
}

interface IdleClosingPool {
  use<T>(fn: (t: Transporter<SMTPPool.SentMessageInfo>) => Promise<T>): Promise<T>;
  close(): void;
}

/** A nodemailer pool that is created on demand and closed once nothing used it for POOL_IDLE_MS. */
function idleClosingPool(target: SmtpTarget, settings: SmtpSettings): IdleClosingPool {
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
      maxConnections: settings.maxConnections ?? 5,
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
    close,
  };
}
