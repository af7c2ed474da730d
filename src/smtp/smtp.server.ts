/**
 * The SMTP submission role: listeners on 587 (STARTTLS, required before AUTH), 465 (implicit TLS) and 25 (STARTTLS),
 * AUTH PLAIN/LOGIN as `apikey` with an API key of the `email` scope, and each message handed to the same submit
 * function as `POST /messages`. The 250 reply names the sourceTrackingId; nothing is acknowledged before it is committed,
 * and a client that drops during DATA leaves nothing behind. With a bounce domain, port 25 also takes reports sent to
 * return paths without AUTH (bounce-inbox.ts).
 * Lifecycle: startSmtp() binds the configured listeners and returns a stop function that closes them, letting
 * connections in progress finish.
 */
import {
  SMTPServer,
  type SMTPServerDataStream,
  type SMTPServerOptions,
  type SMTPServerSession,
} from 'smtp-server';
import type { ParsedMail } from 'mailparser';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors/app-error.ts';
import { CATALOGUE } from '../errors/catalogue.ts';
import { authenticateKey, type Principal } from '../accounts/keys.service.ts';
import { refuseIfAllSuppressed, submitMessages } from '../email/submit.ts';
import { mailToMessage } from './mail-to-message.ts';
import { letGo } from '../mail/held-attachments.ts';
import { smtpTlsPair, type TlsPair } from './tls.ts';
import { createWindowLimiter } from './limiter.ts';
import { advertiseAuthAfterTls } from './auth-after-tls.ts';
import { bounceInbox, type BounceInbox, type ReportHandlers } from './bounce-inbox.ts';
import { REPORT_PARSE_OPTIONS } from '../mail/reports.ts';
import { BUSY_RETRY_SECONDS, type InFlight } from '../in-flight.ts';

/** One listener to start. */
export interface ListenerSpec {
  name: 'submission' | 'tls' | 'port25';
  port: number;
  secure: boolean;
}

/** A started SMTP role: the bound ports by listener name, and stop. */
export interface RunningSmtp {
  ports: Partial<Record<ListenerSpec['name'], number>>;
  stop(): Promise<void>;
}

/** True for an error that already carries its SMTP reply. */
function isReply(err: unknown): err is Error & { responseCode: number } {
  return err instanceof Error && typeof (err as { responseCode?: unknown }).responseCode === 'number';
}

/** An Error carrying an SMTP reply code, as smtp-server expects. */
function smtpError(err: unknown): Error & { responseCode: number } {
  const app = err instanceof AppError ? err : new AppError('internal');
  const [code, enhanced] = CATALOGUE[app.code].smtp.split(' ');
  return Object.assign(
    new Error(`${enhanced} ${app.status >= 500 ? 'internal error, try again later' : app.message}`),
    {
      responseCode: Number(code),
    },
  );
}

/** A DATA stream as read: the message (null when it ended early, was oversized or found the process full), and how much of it was held at the end. */
export interface ReceivedData {
  raw: Buffer | null;
  sizeExceeded: boolean;
  /** The process held too many bytes to take this message (`SEALPOST_MAX_IN_FLIGHT_BYTES`). */
  busy: boolean;
  bytesKept: number;
  /** Gives the message's bytes back to the in-flight budget, once it has been handled. */
  release(): void;
}

/**
 * Collects a DATA stream; resolves to null when it ended early, was oversized, or did not fit in the process's
 * in-flight budget (nothing is submitted then). Once the size limit is passed or the budget refuses a chunk, what was
 * kept is dropped and the rest is read and discarded, so such a message never holds more than it was allowed.
 */
export function readData(stream: SMTPServerDataStream, inFlight?: InFlight): Promise<ReceivedData> {
  return new Promise((resolve) => {
    let chunks: Buffer[] = [];
    let held = 0;
    let busy = false;
    const release = () => {
      inFlight?.release(held);
      held = 0;
    };
    const done = (raw: Buffer | null) => {
      if (raw === null) release();
      resolve({
        raw,
        sizeExceeded: stream.sizeExceeded,
        busy,
        bytesKept: chunks.reduce((n, c) => n + c.length, 0),
        release,
      });
    };
    stream.on('data', (c: Buffer) => {
      if (!busy && inFlight && !inFlight.take(c.length)) busy = true;
      else if (!busy && inFlight) held += c.length;
      if (stream.sizeExceeded || busy) {
        chunks = [];
        release();
      } else chunks.push(c);
    });
    stream.on('error', () => done(null));
    stream.on('end', () => done(stream.sizeExceeded || busy ? null : Buffer.concat(chunks)));
  });
}

/** A message the parser refused: permanent, so the client does not retry it. */
function unparseable(reason: string): Error & { responseCode: number } {
  return Object.assign(new Error(`5.6.0 ${reason}`), { responseCode: 554 });
}

/** Parses a received message, refusing one with more MIME parts than the limit (per multipart, or attachments in all) permanently. */
async function parseMessage(raw: Buffer, maxParts: number, options: object = {}): Promise<ParsedMail> {
  let parsed: ParsedMail;
  // Loaded on the first message: the parser costs start-up time and memory that an API-only process never uses.
  const { simpleParser } = await import('mailparser');
  try {
    parsed = await simpleParser(raw, {
      skipTextToHtml: true,
      skipImageLinks: true,
      maxChildNodes: maxParts,
      ...options,
    } as Parameters<typeof simpleParser>[1]);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    throw unparseable(
      code === 'EMAXLEN'
        ? `Message has too many MIME parts or too long a header (at most ${maxParts} parts)`
        : 'Message could not be parsed',
    );
  }
  if (parsed.attachments.length > maxParts)
    throw unparseable(`Message has too many MIME parts (at most ${maxParts})`);
  return parsed;
}

/** The temporary refusal of a message while the process holds too many bytes of others (`SEALPOST_MAX_IN_FLIGHT_BYTES`). */
function serverBusy(): Error {
  return Object.assign(
    new Error(`4.3.1 Server busy with other messages, try again in ${BUSY_RETRY_SECONDS} s`),
    { responseCode: 451 },
  );
}

/** The temporary refusal of a key over its per-minute budget of recipients. */
function rateLimited(retryInMs: number): Error {
  return Object.assign(
    new Error(`4.7.1 Rate limit exceeded for this API key, try again in ${Math.ceil(retryInMs / 1000)} s`),
    { responseCode: 451 },
  );
}

type Handlers = Required<Pick<SMTPServerOptions, 'onAuth' | 'onMailFrom' | 'onRcptTo' | 'onData'>>;
type Limiter = ReturnType<typeof createWindowLimiter>;

/**
 * The handlers of a listener: authentication, the rate limit, and submission; with an inbox (port 25), mail without
 * authentication to the return paths it takes.
 */
function handlers(ctx: AppContext, limiter: Limiter, inbox: BounceInbox | null): Handlers {
  return {
    onAuth: authHandler(ctx),
    onRcptTo: rcptHandler(ctx, limiter, inbox),
    onMailFrom: mailFromHandler(limiter, inbox),
    onData: dataHandler(ctx, inbox),
  };
}

/**
 * AUTH as `apikey` with a key of the email scope. A valid key always passes; a failure counts against the address and
 * the presented key's prefix, and past the limit is answered 421 (closing the connection) instead of 535.
 */
function authHandler(ctx: AppContext): Handlers['onAuth'] {
  const throttle = ctx.authThrottle;
  return (auth, session, callback) => {
    const fail = () =>
      void throttle
        .failed(session.remoteAddress, auth.password ?? '', 'smtp')
        .then((refusedMs) => callback(refusedMs > 0 ? throttled(refusedMs) : authFailed()));
    if (auth.username !== 'apikey' || !auth.password) return fail();
    authenticateKey(ctx.database.reader, auth.password, Date.now(), ctx.database.db)
      .then((principal) => (principal.scopes.has('email') ? callback(null, { user: principal }) : fail()))
      .catch(fail);
  };
}

const authFailed = () =>
  Object.assign(new Error('5.7.8 Authentication failed: user "apikey" with an API key of the email scope'), {
    responseCode: 535,
  });

const throttled = (ms: number) =>
  Object.assign(
    new Error(
      `4.7.0 Too many failed authentications from this address or with this key; try again in ${Math.ceil(ms / 1000)} s`,
    ),
    { responseCode: 421 },
  );

/** RCPT TO: a return path for the inbox without AUTH; else one unit of the key's budget, up to the recipient cap. */
function rcptHandler(ctx: AppContext, limiter: Limiter, inbox: BounceInbox | null): Handlers['onRcptTo'] {
  return (address, session, callback) => {
    if (!session.user && inbox) return callback(inbox.checkRecipient(address.address) ?? undefined);
    const cap = ctx.config.maxRecipientsPerMessage;
    if (session.envelope.rcptTo.length < cap) {
      // Each recipient costs one unit of the key's budget: a message to many costs what many messages would.
      const retryIn = limiter.take((session.user as unknown as Principal).keyId);
      return callback(retryIn > 0 ? rateLimited(retryIn) : undefined);
    }
    callback(
      Object.assign(
        new Error(`4.5.3 Too many recipients: at most ${cap} per message; send the rest in another message`),
        {
          responseCode: 452,
        },
      ),
    );
  };
}

/** MAIL FROM: needs AUTH (except for the inbox), and a key with budget left. */
function mailFromHandler(limiter: Limiter, inbox: BounceInbox | null): Handlers['onMailFrom'] {
  return (_address, session, callback) => {
    const principal = session.user as unknown as Principal | undefined;
    if (!principal && inbox) return callback();
    if (!principal)
      return callback(Object.assign(new Error('5.7.0 Authentication required'), { responseCode: 530 }));
    const retryIn = limiter.exhausted(principal.keyId);
    callback(retryIn > 0 ? rateLimited(retryIn) : undefined);
  };
}

/** DATA: reads the message and answers with what `receiveMessage` replies, or the refusal as an SMTP reply. */
function dataHandler(ctx: AppContext, inbox: BounceInbox | null): Handlers['onData'] {
  return (stream, session: SMTPServerSession, callback) => {
    void (async () => {
      const data = await readData(stream, ctx.inFlight);
      const { sizeExceeded, busy, release } = data;
      if (busy) return callback(serverBusy());
      if (data.raw === null) {
        if (sizeExceeded)
          return callback(
            Object.assign(
              new Error(`5.3.4 Message exceeds the size limit of ${ctx.config.smtpMaxMessageBytes} bytes`),
              {
                responseCode: 552,
              },
            ),
          );
        return callback(
          Object.assign(new Error('4.4.2 Message not received completely'), { responseCode: 451 }),
        );
      }
      try {
        callback(null, await receiveMessage(ctx, inbox, data, session));
      } finally {
        release();
      }
    })().catch((err: unknown) => {
      if (isReply(err)) return callback(err);
      if (!(err instanceof AppError)) ctx.log.error({ err }, 'SMTP submission failed');
      callback(smtpError(err));
    });
  };
}

/**
 * The received bytes, handed to the parser: the data forgets them, so that once parsed the message is held as its
 * parts only (and, once sealed, as its sealed content only) while the commit is awaited.
 */
function takeRaw(data: ReceivedData): Buffer {
  const raw = data.raw!;
  data.raw = null;
  return raw;
}

/** Hands a received message on: a report to the inbox when unauthenticated, else a submission; returns the 250 text. */
async function receiveMessage(
  ctx: AppContext,
  inbox: BounceInbox | null,
  data: ReceivedData,
  session: SMTPServerSession,
): Promise<string> {
  const principal = session.user as unknown as Principal | undefined;
  if (!principal && inbox) {
    const report = await parseMessage(takeRaw(data), ctx.config.smtpMaxMimeParts, REPORT_PARSE_OPTIONS);
    return inbox.receive(
      report,
      session.envelope.rcptTo.map((r) => r.address),
    );
  }
  if (!principal) throw new AppError('auth.missing_key');
  const message = mailToMessage(
    await parseMessage(takeRaw(data), ctx.config.smtpMaxMimeParts),
    session.envelope.rcptTo.map((r) => r.address),
  );
  try {
    const [response] = await submitMessages(
      ctx,
      { customerId: principal.customerId, domain: principal.domain },
      [message],
      {
        source: 'smtp',
        tracking: { openTracking: true, linkTracking: true },
      },
    );
    return `Message accepted, sourceTrackingId ${refuseIfAllSuppressed(response!).sourceTrackingId}`;
  } finally {
    letGo(message.attachments.map((a) => a.content)); // those not sealed: the message was refused
  }
}

/** The listeners configuration asks for (port 0 turns one off). */
export function configuredListeners(ctx: AppContext): ListenerSpec[] {
  const all: ListenerSpec[] = [
    { name: 'submission', port: ctx.config.smtpSubmissionPort, secure: false },
    { name: 'tls', port: ctx.config.smtpTlsPort, secure: true },
    { name: 'port25', port: ctx.config.smtpPort25, secure: false },
  ];
  return all.filter((l) => l.port !== 0);
}

function listen(server: SMTPServer, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(port, host, () => {
      server.server.off('error', reject);
      const address = server.server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

/**
 * Starts the given listeners (all configured ones by default). A privileged port that cannot be bound is skipped with a
 * warning. Given report handlers and a configured bounce domain, the port-25 listener also takes reports (bounce-inbox.ts).
 */
export async function startSmtp(
  ctx: AppContext,
  listeners = configuredListeners(ctx),
  tls?: TlsPair,
  reports?: ReportHandlers,
): Promise<RunningSmtp> {
  const pair = tls ?? smtpTlsPair(ctx.config, ctx.log);
  const limiter = createWindowLimiter(ctx.config.smtpRateLimitPerMinute, 60_000);
  const inbox = reports ? bounceInbox(ctx, reports) : null;
  const servers: SMTPServer[] = [];
  const ports: RunningSmtp['ports'] = {};
  for (const spec of listeners) {
    const listenerInbox = spec.name === 'port25' ? inbox : null;
    const server = new SMTPServer({
      ...handlers(ctx, limiter, listenerInbox),
      secure: spec.secure,
      key: pair.key,
      cert: pair.cert,
      name: ctx.config.heloName || undefined,
      banner: 'Sealpost ESMTP',
      authMethods: ['PLAIN', 'LOGIN'],
      authOptional: listenerInbox !== null,
      allowInsecureAuth: false,
      size: ctx.config.smtpMaxMessageBytes,
      maxClients: ctx.config.smtpMaxClients,
      socketTimeout: ctx.config.smtpSocketTimeoutMs,
      closeTimeout: ctx.config.shutdownTimeoutMs,
      disabledCommands: [],
      logger: false,
    });
    if (!spec.secure) advertiseAuthAfterTls(server);
    // A failed listen is reported by the start itself, as one line naming the setting.
    server.on('error', (err: NodeJS.ErrnoException) => {
      if (err.syscall !== 'listen') ctx.log.warn({ err, listener: spec.name }, 'SMTP connection error');
    });
    try {
      ports[spec.name] = await listen(server, spec.port, ctx.config.smtpHost);
      servers.push(server);
      ctx.log.info({ listener: spec.name, port: ports[spec.name] }, 'SMTP listener started');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EACCES') {
        await Promise.all(servers.map((s) => new Promise((r) => s.close(() => r(undefined)))));
        throw err;
      }
      ctx.log.warn(
        { port: spec.port, listener: spec.name },
        `SMTP port ${spec.port} needs root or CAP_NET_BIND_SERVICE; listener "${spec.name}" is off (set its port in the configuration, or 0 to silence this)`,
      );
    }
  }
  return {
    ports,
    stop: () =>
      Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r())))).then(() => undefined),
  };
}
