/**
 * A real HTTP server on a loopback port that receives webhook POSTs for tests. It records every request and answers as
 * told: a status (2xx by default), after a delay if asked. It can be stopped and started again on the same port, so a
 * test can take the receiver down and bring it back. Lifecycle: startWebhookReceiver() listens on port 0; stop() and
 * start() take it down and up; close() stops it for good.
 */
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from './wait.ts';

/** One request the receiver got. */
export interface ReceivedHook {
  /** 1 for the first request the receiver got, counting across stops and starts. */
  n: number;
  headers: IncomingHttpHeaders;
  body: string;
  json(): { event_name: string; payload: Record<string, unknown> };
  at: number;
}

/** The answer to a request: a status with an optional body, sent after `delayMs`. */
export interface HookReply {
  status: number;
  body?: string;
  delayMs?: number;
}

/** A running receiver. */
export interface WebhookReceiver {
  port: number;
  /** `http://127.0.0.1:<port>/hooks` */
  url: string;
  received: ReceivedHook[];
  /** Decides the answer to each request (200 by default). */
  reply: (hook: ReceivedHook) => HookReply;
  /** Stops listening and drops open connections: attempts now fail to connect. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  /** Waits until at least `count` requests arrived; returns them. */
  waitForCount(count: number, timeoutMs?: number): Promise<ReceivedHook[]>;
  close(): Promise<void>;
}

/** Starts a receiver on a free loopback port. */
export async function startWebhookReceiver(
  reply: (hook: ReceivedHook) => HookReply = () => ({ status: 200, body: 'ok' }),
): Promise<WebhookReceiver> {
  const received: ReceivedHook[] = [];
  let port = 0;
  let server: http.Server | undefined;

  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const hook: ReceivedHook = {
        n: received.length + 1,
        headers: req.headers,
        body,
        json: () => JSON.parse(body),
        at: Date.now(),
      };
      received.push(hook);
      const answer = receiver.reply(hook);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, { 'content-type': 'text/plain' });
        res.end(answer.body ?? '');
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  };

  const listen = async () => {
    const s = http.createServer(handler);
    s.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => resolve());
    });
    port = (s.address() as AddressInfo).port;
    server = s;
  };
  const stop = async () => {
    const s = server;
    server = undefined;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  };

  await listen();
  const receiver: WebhookReceiver = {
    port,
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    reply,
    stop,
    start: listen,
    waitForCount: (count, timeoutMs = 10_000) =>
      waitFor(
        () => (received.length >= count ? received.slice() : undefined),
        timeoutMs,
        10,
        `${count} webhook requests`,
      ),
    close: stop,
  };
  return receiver;
}
