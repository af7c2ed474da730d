/**
 * Pools of SMTP sessions with next hops (a smarthost, or each MX host), so that a busy destination pays for the
 * connection and its TLS handshake once per session, not once per message. A pool per destination keeps at most
 * `maxConnections` sessions (the per-destination limit); a session sends message after message (RSET after a refused
 * one), and ends after MAX_SESSION_MESSAGES messages, MAX_SESSION_AGE_MS, or a quiet SESSION_IDLE_MS.
 *
 * Mail that requires TLS only goes over sessions opened under that policy (STARTTLS or implicit TLS, the certificate
 * verified as configured). Mail that may go in clear goes over any open session; a session it opens uses TLS when the
 * next hop offers it (without verifying the certificate, which would only lead to sending in clear), and plain SMTP
 * when the handshake fails. Each outcome says whether its session was over TLS.
 *
 * A session that a next hop closed while it sat idle shows only when the next message fails without a reply: that
 * message is sent once more over a new session. Past MAX_POOLS, a new destination closes the least recently used pool
 * with nothing in flight; pools in use stay, bounded by the deliveries running at once.
 * Lifecycle: sessionPools() per transport; send() per message; close() when the transport closes.
 */
import type SMTPConnection from 'nodemailer/lib/smtp-connection/index.js';
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

const smtpConnection = onFirstUse<typeof SMTPConnection>('nodemailer/lib/smtp-connection/index.js');

/** A session ends after this many messages, as a long-lived one would pin one of the peer's processes. */
const MAX_SESSION_MESSAGES = 1000;
/** Or after this long (Postfix's default limit for reusing a connection). */
const MAX_SESSION_AGE_MS = 300_000;
/** An idle session is closed after this long. */
const SESSION_IDLE_MS = 60_000;
/** Destinations whose pools are kept at once. */
const MAX_POOLS = 256;

/** Pools of SMTP sessions, one per destination. */
export interface SessionPools {
  /**
   * Sends one message over a pooled session with `target`. Never throws. `requireTls` is the message's policy: true
   * (the default) sends only over a session that negotiated TLS, and decides how a failure reads (see outcomeOfError).
   */
  send(target: SmtpTarget, envelope: Envelope, raw: Buffer, requireTls?: boolean): Promise<SendOutcome>;
  close(): void;
}

/** Creates the pools of one transport; each destination gets at most `maxConnections` sessions. */
export function sessionPools(settings: SmtpSettings, maxConnections: number): SessionPools {
  const pools = new Map<string, DestinationPool>();
  const poolOf = (target: SmtpTarget): DestinationPool => {
    const key = `${target.host}|${target.port}|${target.secure}|${target.servername ?? ''}|${target.auth?.user ?? ''}`;
    let pool = pools.get(key);
    if (pool) {
      // Re-inserted so the map's order is the order of last use.
      pools.delete(key);
      pools.set(key, pool);
      return pool;
    }
    if (pools.size >= MAX_POOLS) {
      const idle = [...pools].find(([, p]) => p.inFlight === 0);
      if (idle) {
        idle[1].close();
        pools.delete(idle[0]);
      }
    }
    pool = new DestinationPool(target, settings, maxConnections);
    pools.set(key, pool);
    return pool;
  };
  return {
    send: (target, envelope, raw, requireTls = true) => poolOf(target).send(envelope, raw, requireTls),
    close() {
      for (const pool of pools.values()) pool.close();
      pools.clear();
    },
  };
}

/** An open session of a pool. */
interface Session {
  conn: SMTPConnection;
  /** Opened under the required-TLS policy: TLS negotiated, the certificate verified as configured. */
  strict: boolean;
  messages: number;
  openedAt: number;
  idleTimer?: NodeJS.Timeout;
  ended: boolean;
}

/** How sending one message over a session went, and whether the session can take another. */
interface Sent {
  outcome: SendOutcome;
  reusable: boolean;
}

/** The sessions with one destination. */
class DestinationPool {
  inFlight = 0;
  private idle: Session[] = [];
  /** Sessions open or opening, idle or busy: never more than `max`. */
  private open = 0;
  private waiters: (() => void)[] = [];
  private closed = false;

  constructor(
    private readonly target: SmtpTarget,
    private readonly settings: SmtpSettings,
    private readonly max: number,
  ) {}

  async send(envelope: Envelope, raw: Buffer, requireTls: boolean): Promise<SendOutcome> {
    this.inFlight++;
    try {
      for (let attempt = 0; ; attempt++) {
        const session = await this.acquire(requireTls);
        if ('result' in session) return session;
        const reused = session.messages > 0;
        const { outcome, reusable } = await sendOver(session, envelope, raw, requireTls);
        this.release(session, reusable);
        // A reused session that failed before any reply was most likely closed by the peer while it sat idle.
        if (reused && outcome.unreachable && attempt === 0) continue;
        return outcome;
      }
    } finally {
      this.inFlight--;
    }
  }

  close(): void {
    this.closed = true;
    for (const session of this.idle) this.end(session);
    this.idle = [];
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** A session for a message under `requireTls`: an idle one that fits, a new one, or one freed later. */
  private async acquire(requireTls: boolean): Promise<Session | SendOutcome> {
    for (;;) {
      if (this.closed) return { result: 'temporary', response: 'the transport is closing', tls: null };
      const fit = this.takeIdle(requireTls);
      if (fit) return fit;
      // A session that does not fit this message gives way to one that does.
      if (this.open >= this.max && this.idle.length > 0) this.end(this.idle.shift()!);
      if (this.open < this.max) return this.openSession(requireTls);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** The most recently used idle session that fits (strict ones for mail that requires TLS). */
  private takeIdle(requireTls: boolean): Session | undefined {
    for (let i = this.idle.length - 1; i >= 0; i--) {
      const session = this.idle[i]!;
      if (requireTls && !session.strict) continue;
      this.idle.splice(i, 1);
      clearTimeout(session.idleTimer);
      return session;
    }
    return undefined;
  }

  /** Opens a session; for mail that may go in clear, once more without TLS when the TLS handshake fails. */
  private async openSession(requireTls: boolean): Promise<Session | SendOutcome> {
    this.open++;
    const options = sessionOptions(this.target, this.settings, requireTls);
    let opened = await connectSession(options, this.target.auth, requireTls);
    if (!requireTls && 'result' in opened && opened.result === 'tls-unavailable')
      opened = await connectSession({ ...options, ignoreTLS: true }, this.target.auth, false);
    if ('result' in opened) {
      this.open--;
      this.wakeOne();
      return opened;
    }
    const session: Session = {
      conn: opened,
      strict: requireTls,
      messages: 0,
      openedAt: Date.now(),
      ended: false,
    };
    // An idle session the peer closes, or that times out, leaves the pool; a busy one reports through its message.
    const gone = () => {
      if (session.ended) return;
      session.ended = true;
      clearTimeout(session.idleTimer);
      const at = this.idle.indexOf(session);
      if (at >= 0) this.idle.splice(at, 1);
      this.open--;
      this.wakeOne();
    };
    opened.on('error', gone);
    opened.once('end', gone);
    return session;
  }

  /** Puts a session back after a message, or ends it when it cannot or should not take another. */
  private release(session: Session, reusable: boolean): void {
    if (session.ended) return;
    const worn =
      session.messages >= MAX_SESSION_MESSAGES || Date.now() - session.openedAt >= MAX_SESSION_AGE_MS;
    if (!reusable || worn || this.closed) {
      this.end(session, reusable);
      return;
    }
    session.idleTimer = setTimeout(() => {
      const at = this.idle.indexOf(session);
      if (at >= 0) this.idle.splice(at, 1);
      this.end(session);
    }, SESSION_IDLE_MS).unref();
    this.idle.push(session);
    this.wakeOne();
  }

  /** Ends a session (with QUIT when it can still speak) and frees its place. */
  private end(session: Session, polite = true): void {
    if (session.ended) return;
    session.ended = true;
    clearTimeout(session.idleTimer);
    this.open--;
    if (polite) session.conn.quit();
    else session.conn.close();
    this.wakeOne();
  }

  private wakeOne(): void {
    this.waiters.shift()?.();
  }
}

/** Connects, says EHLO, negotiates TLS as `options` ask and authenticates: an open session, or why there is none. */
function connectSession(
  options: SMTPConnection.Options,
  auth: SmtpTarget['auth'],
  requireTls: boolean,
): Promise<SMTPConnection | SendOutcome> {
  return new Promise((resolve) => {
    noDelaySocket(options, (err, socket) => {
      if (err || !socket) return resolve(outcomeOfError(err, requireTls));
      const conn = new (smtpConnection())({ ...options, connection: socket.connection });
      let settled = false;
      const fail = (e: unknown) => {
        if (settled) return;
        settled = true;
        // A socket error in the middle of the STARTTLS handshake (an unverifiable certificate, say) is a TLS failure.
        if (upgrading(conn) && typeof e === 'object' && e !== null) (e as { code?: string }).code = 'ETLS';
        resolve(outcomeOfError(e, requireTls, conn.secure));
        conn.close();
      };
      const done = () => {
        if (settled) return;
        settled = true;
        conn.removeListener('error', fail);
        conn.removeListener('end', closed);
        resolve(conn);
      };
      const closed = () =>
        fail(Object.assign(new Error('connection closed during the greeting'), { code: 'ECONNECTION' }));
      conn.on('error', fail);
      conn.once('end', closed);
      conn.connect(() => {
        if (auth) conn.login(auth, (e) => (e ? fail(e) : done()));
        else done();
      });
    });
  });
}

/**
 * Sends one message over a session. A refused message leaves the session usable once RSET is accepted; an error
 * without a reply (reset, timeout) ends it.
 */
function sendOver(session: Session, envelope: Envelope, raw: Buffer, requireTls: boolean): Promise<Sent> {
  const { conn } = session;
  const tls = conn.secure;
  session.messages++;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (sent: Sent) => {
      if (settled) return;
      settled = true;
      conn.removeListener('error', broken);
      conn.removeListener('end', closed);
      resolve(sent);
    };
    const broken = (err: unknown) =>
      finish({ outcome: outcomeOfError(err, requireTls, tls), reusable: false });
    const closed = () =>
      broken(
        Object.assign(new Error('connection closed before the message was accepted'), {
          code: 'ECONNECTION',
        }),
      );
    conn.on('error', broken);
    conn.once('end', closed);
    conn.send({ from: envelope.from, to: [envelope.to] }, raw, (err, info) => {
      if (!err)
        return finish({
          outcome: { result: 'accepted', response: oneLine(info.response ?? '250 accepted'), tls },
          reusable: true,
        });
      const outcome = outcomeOfError(err, requireTls, tls);
      if (!(err as { responseCode?: number }).responseCode) return finish({ outcome, reusable: false });
      conn.reset((resetErr) => finish({ outcome, reusable: !resetErr }));
    });
  });
}

const upgrading = (conn: SMTPConnection) => (conn as unknown as { upgrading?: boolean }).upgrading === true;
