/**
 * What SMTP sessions with a next hop (a smarthost or an MX host) are made of: the session options under the TLS policy,
 * a no-delay socket, and the outcome every way a session can end is turned into, so the engine never sees a socket
 * error: a reply code decides between temporary and permanent, anything without a reply (refused, reset, timed out) is
 * temporary and marked `unreachable` so the caller may try another host. Sessions themselves live in session-pool.ts.
 */
import { connect as tcpConnect, type Socket } from 'node:net';
import type SMTPConnection from 'nodemailer/lib/smtp-connection/index.js';

/** What one attempt to hand a message to a next hop came to. */
export interface SendOutcome {
  result: 'accepted' | 'temporary' | 'permanent' | 'tls-unavailable';
  /** The peer's reply line, or what went wrong; one line, truncated. */
  response: string;
  /** Whether the session ran over TLS; null when that is unknown or no session took place. */
  tls: boolean | null;
  /** True when no SMTP conversation took place (refused, unreachable, timed out before a reply). */
  unreachable?: boolean;
}

/** Where a session goes. */
export interface SmtpTarget {
  host: string;
  port: number;
  /** Implicit TLS from the first byte (smtps). */
  secure: boolean;
  /** The name the certificate must carry, when `host` is an address. */
  servername?: string;
  auth?: { user: string; pass: string };
}

/** How sessions behave, from configuration. */
export interface SmtpSettings {
  heloName: string;
  timeoutMs: number;
  tlsVerify: boolean;
  /** Most connections a pooled transport keeps open to one host. */
  maxConnections?: number;
}

/** A message for one recipient. */
export interface Envelope {
  from: string;
  to: string;
}

const RESPONSE_MAX = 500;
/** How a failed handshake reads once a pooled connection has reported it as a socket error. */
const TLS_FAILURE = /certificate|self[- ]signed|altnames|handshake|ssl|tls/i;
const NO_REPLY_CODES = new Set([
  'ECONNECTION',
  'ETIMEDOUT',
  'ESOCKET',
  'EDNS',
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
]);

/** nodemailer's options for a session under the TLS policy: required TLS verifies certificates (when configured to). */
export function sessionOptions(
  target: SmtpTarget,
  settings: SmtpSettings,
  requireTls: boolean,
): SMTPConnection.Options {
  return {
    host: target.host,
    port: target.port,
    secure: target.secure,
    servername: target.servername,
    name: settings.heloName,
    requireTLS: requireTls && !target.secure,
    // Without a TLS requirement, TLS is still used when offered; a certificate that cannot be verified is accepted,
    // because refusing it would only lead to sending in clear.
    opportunisticTLS: !requireTls,
    tls: { rejectUnauthorized: requireTls ? settings.tlsVerify : false, servername: target.servername },
    connectionTimeout: settings.timeoutMs,
    greetingTimeout: settings.timeoutMs,
    socketTimeout: settings.timeoutMs,
    dnsTimeout: settings.timeoutMs,
    logger: false,
  } as SMTPConnection.Options;
}

/** Where and how long to try when opening a connection (a subset of nodemailer's options). */
interface SocketRequest {
  host?: string;
  port?: number | string;
  connectionTimeout?: number;
}

/**
 * Opens the TCP connection of a session with TCP_NODELAY set, in the shape of nodemailer's `getSocket` hook. Without it the
 * small end-of-data segment waits for the peer's delayed acknowledgement (about 40 ms on Linux) after every message.
 */
export function noDelaySocket(
  request: SocketRequest,
  callback: (err: Error | null, socket?: { connection: Socket }) => void,
): void {
  const socket = tcpConnect({ host: request.host, port: Number(request.port ?? 25), noDelay: true });
  const timer = setTimeout(
    () => socket.destroy(Object.assign(new Error('Connection timeout'), { code: 'ETIMEDOUT' })),
    request.connectionTimeout ?? 30_000,
  );
  const onError = (err: Error) => {
    clearTimeout(timer);
    callback(err);
  };
  socket.once('error', onError);
  socket.once('connect', () => {
    clearTimeout(timer);
    socket.removeListener('error', onError);
    callback(null, { connection: socket });
  });
}

interface SmtpErrorLike {
  code?: string;
  responseCode?: number;
  response?: string;
  command?: string;
  message?: string;
}

/**
 * Turns a nodemailer error into an outcome. A refused or failed STARTTLS or TLS handshake (and, when TLS is required,
 * a peer that cannot even say EHLO) means the next hop cannot do TLS; a reply code decides the rest; authentication failures stay
 * temporary because they are the operator's to fix, not the recipient's.
 */
export function outcomeOfError(err: unknown, requireTls: boolean, tls: boolean | null = null): SendOutcome {
  const e = (typeof err === 'object' && err !== null ? err : { message: String(err) }) as SmtpErrorLike;
  const response = oneLine(e.response || e.message || 'delivery failed');
  if (
    e.code === 'ETLS' ||
    (e.code === 'ESOCKET' && TLS_FAILURE.test(e.message ?? '')) ||
    (requireTls && e.command === 'EHLO' && (e.responseCode ?? 0) >= 500)
  )
    return { result: 'tls-unavailable', response, tls: false };
  const code = e.responseCode ?? 0;
  if (code >= 500 && e.code !== 'EAUTH') return { result: 'permanent', response, tls };
  if (code >= 400) return { result: 'temporary', response, tls };
  return {
    result: 'temporary',
    response,
    tls: null,
    unreachable: e.code === undefined || NO_REPLY_CODES.has(e.code),
  };
}

/** One line of at most 500 characters. */
export function oneLine(text: string): string {
  const line = text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
  return line.length > RESPONSE_MAX ? `${line.slice(0, RESPONSE_MAX - 1)}…` : line;
}
