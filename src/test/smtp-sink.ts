/**
 * A real SMTP server on a loopback port for tests: it receives what delivery sends and answers as told (accept, 4xx,
 * 5xx, or never answer the data). It offers STARTTLS with a self-signed certificate made at test time, or no TLS at all,
 * or implicit TLS. Lifecycle: startSmtpSink() listens on port 0; close() stops it and drops open connections.
 */
import type { AddressInfo, Socket } from 'node:net';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import selfsigned from 'selfsigned';

/** A message the sink received. */
export interface ReceivedMail {
  from: string;
  to: string[];
  raw: Buffer;
  /** Whether the session was over TLS when the data came. */
  secure: boolean;
  parsed(): Promise<ParsedMail>;
}

/** The reply to the n-th message (from 1): accept, an SMTP error code with text, or `stall` to never answer. */
export type SinkReply = { code: 250 } | { code: number; message: string } | 'stall';

/** How a sink behaves. */
export interface SinkOptions {
  /** `starttls` (the default) offers STARTTLS; `none` offers no TLS; `implicit` speaks TLS from the first byte. */
  tls?: 'starttls' | 'none' | 'implicit';
  reply?: (n: number) => SinkReply;
  /** Credentials the sink requires; none by default. */
  auth?: { user: string; pass: string };
  /** Milliseconds to hold each message before answering, so that concurrent sessions overlap. */
  replyDelayMs?: number;
}

/** A running sink. */
export interface SmtpSink {
  port: number;
  /** `smtp://127.0.0.1:<port>` (or `smtps://` for implicit TLS), with credentials when the sink requires them. */
  url: string;
  received: ReceivedMail[];
  /** How many DATA commands arrived, answered or not. */
  dataCount(): number;
  /** The most connections that were open at the same time. */
  peakConnections(): number;
  /** How many connections were opened in all. */
  connections(): number;
  /** Drops every open connection without a word, as a server ending idle sessions does. */
  dropConnections(): void;
  close(): Promise<void>;
}

let certificate: { key: string; cert: string } | undefined;

/** A self-signed certificate for localhost, made once per test process. */
export function testCertificate(): { key: string; cert: string } {
  if (!certificate) {
    const pems = selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
      days: 2,
      keySize: 2048,
      algorithm: 'sha256',
    });
    certificate = { key: pems.private, cert: pems.cert };
  }
  return certificate;
}

/** Starts a sink on 127.0.0.1, port 0. */
export async function startSmtpSink(opts: SinkOptions = {}): Promise<SmtpSink> {
  const tls = opts.tls ?? 'starttls';
  const received: ReceivedMail[] = [];
  let data = 0;
  let open = 0;
  let peak = 0;
  let opened = 0;
  const reply = opts.reply ?? (() => ({ code: 250 }) as const);
  const server = new SMTPServer({
    ...(tls === 'none' ? { disabledCommands: ['STARTTLS'], hideSTARTTLS: true } : testCertificate()),
    secure: tls === 'implicit',
    authOptional: !opts.auth,
    allowInsecureAuth: true,
    logger: false,
    closeTimeout: 100,
    onConnect(_session, cb) {
      opened++;
      peak = Math.max(peak, ++open);
      cb();
    },
    onClose() {
      open--;
    },
    onAuth(auth, _session, cb) {
      if (opts.auth && auth.username === opts.auth.user && auth.password === opts.auth.pass)
        cb(null, { user: auth.username });
      else cb(Object.assign(new Error('authentication failed'), { responseCode: 535 }));
    },
    onData(stream: SMTPServerDataStream, session: SMTPServerSession, cb) {
      const n = ++data;
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => setTimeout(respond, opts.replyDelayMs ?? 0));
      const respond = () => {
        const answer = reply(n);
        if (answer === 'stall') return;
        const raw = Buffer.concat(chunks);
        if (answer.code >= 400)
          return cb(
            Object.assign(new Error('message' in answer ? answer.message : 'refused'), {
              responseCode: answer.code,
            }),
          );
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          secure: session.secure,
          parsed: () => simpleParser(raw),
        });
        cb(null, `OK queued as sink-${n}`);
      };
    },
  });
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  const auth = opts.auth
    ? `${encodeURIComponent(opts.auth.user)}:${encodeURIComponent(opts.auth.pass)}@`
    : '';
  return {
    port,
    url: `${tls === 'implicit' ? 'smtps' : 'smtp'}://${auth}127.0.0.1:${port}`,
    received,
    dataCount: () => data,
    peakConnections: () => peak,
    connections: () => opened,
    dropConnections: () => {
      for (const c of (server as unknown as { connections: Set<{ _socket: Socket }> }).connections)
        c._socket.destroy();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
