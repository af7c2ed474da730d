/**
 * The client address behind a reverse proxy: the nginx block of docs/deploy.md, played by a small loopback proxy that
 * sets the headers that block sets, in front of a server that trusts that proxy's address only.
 */
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/harness.ts';

/** The `proxy_set_header` lines of the nginx block in docs/deploy.md, as header name and nginx value. */
function documentedHeaders(): [string, string][] {
  const doc = readFileSync(new URL('../../docs/deploy.md', import.meta.url), 'utf8');
  const block = /```nginx\n([\s\S]*?)```/.exec(doc)?.[1];
  if (!block) throw new Error('docs/deploy.md has no nginx block');
  return [...block.matchAll(/proxy_set_header\s+(\S+)\s+([^;]+);/g)].map((m) => [
    m[1]!.toLowerCase(),
    m[2]!.trim(),
  ]);
}

/** The value of one nginx variable for a request; an unknown variable fails the test rather than passing it on. */
function nginxValue(value: string, req: http.IncomingMessage): string {
  const remote = req.socket.remoteAddress ?? '';
  const forwarded = req.headers['x-forwarded-for'];
  const vars: Record<string, string> = {
    $host: (req.headers.host ?? '').replace(/:\d+$/, ''),
    $remote_addr: remote,
    $proxy_add_x_forwarded_for: forwarded ? `${String(forwarded)}, ${remote}` : remote,
    $scheme: 'https',
    $request_id: '0123456789abcdef0123456789abcdef',
  };
  const v = vars[value];
  if (v === undefined) throw new Error(`the test proxy does not know the nginx value ${value}`);
  return v;
}

/** Starts the proxy on 127.0.0.1, forwarding to `port` from 127.0.0.1 with the documented headers. */
async function startProxy(port: number): Promise<http.Server> {
  const sets = documentedHeaders();
  const server = http.createServer((req, res) => {
    const headers = { ...req.headers };
    for (const [name, value] of sets) headers[name] = nginxValue(value, req);
    const up = http.request(
      { host: '127.0.0.1', localAddress: '127.0.0.1', port, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** A GET with a wrong key (a new one each time, so only the address adds up) from the loopback address `from`, with a forged X-Forwarded-For; resolves to the status. */
function badKey(port: number, from: string, forged: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        localAddress: from,
        path: '/v1/email/messages',
        headers: {
          authorization: `Bearer sp_${randomBytes(8).toString('hex')}`,
          'x-forwarded-for': forged,
          connection: 'close',
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('the client address behind the documented reverse proxy', () => {
  let t: TestApp;
  let proxy: http.Server;
  let app: number;
  let front: number;
  beforeAll(async () => {
    t = await createTestApp({ config: { trustProxy: ['127.0.0.1'], authFailuresPerWindow: 2 } });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    app = (t.app.server.address() as AddressInfo).port;
    proxy = await startProxy(app);
    front = (proxy.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => proxy.close(resolve));
    await t.close();
  });

  it('counts failures through the trusted proxy against the real client, whatever X-Forwarded-For it forges', async () => {
    expect(await badKey(front, '127.0.0.3', '198.51.100.1')).toBe(401);
    expect(await badKey(front, '127.0.0.3', '198.51.100.2')).toBe(401);
    expect(await badKey(front, '127.0.0.3', '198.51.100.3, 198.51.100.4')).toBe(429);
    expect(await badKey(front, '127.0.0.4', '127.0.0.3')).toBe(401);
  });

  it('ignores X-Forwarded-For from a hop that is not a trusted proxy, so a victim cannot be locked out', async () => {
    expect(await badKey(app, '127.0.0.5', '127.0.0.6')).toBe(401);
    expect(await badKey(app, '127.0.0.5', '127.0.0.6')).toBe(401);
    expect(await badKey(app, '127.0.0.5', '127.0.0.7')).toBe(429);
    expect(await badKey(front, '127.0.0.6', '')).toBe(401);
  });
});
