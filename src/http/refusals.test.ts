import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';

const redisUrl = process.env.SEALPOST_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const LIMIT = 4;

const validSend = (a: TestAccount) => ({
  data: {
    message: {
      recipients: ['a@example.org'],
      headers: { from: `noreply@${a.domain}`, subject: 'Hi' },
      content: { 'text/plain': 'x' },
    },
  },
});

/** One request of each kind refused for what it carried: 400 (malformed), 413 (too large), 422 (unprocessable). */
const REFUSED_REQUESTS = [
  { url: '/v1/email/messages', payload: '{"data": ' },
  { url: '/v1/email/messages', payload: JSON.stringify({ pad: 'x'.repeat(4096) }) },
  {
    url: '/v1/forms/api/forms',
    payload: JSON.stringify({ title: 'Bad', form_json: { body: [{ type: 'Nope', id: 'a' }] } }),
  },
];

describe.each([
  ['in memory', {}],
  ['through Redis', { rateLimitRedisUrl: redisUrl }],
])('refused requests and the rate budget, %s', (_name, extra) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ config: { rateLimitPerMinute: LIMIT, bodyLimitBytes: 2048, ...extra } });
  });
  afterAll(() => t.close());

  const post = (a: TestAccount, payload: string, url = '/v1/email/messages') =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { ...a.auth, 'content-type': 'application/json' },
      payload,
    });

  it('lets a valid send through after a burst of 400, 413 and 422 answers up to the limit', async () => {
    const a = await t.createAccount();
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT; i++) {
      const refused = REFUSED_REQUESTS[i % REFUSED_REQUESTS.length]!;
      statuses.push((await post(a, refused.payload, refused.url)).statusCode);
    }
    expect(statuses).toEqual([400, 413, 422, 400]);
    const res = await post(a, JSON.stringify(validSend(a)));
    expect(res.statusCode).toBe(200);
    expect(res.headers['ratelimit-remaining']).toBe(String(LIMIT - 1));
  });

  it('charges refused requests again once a limit’s worth of them has been given back in the window', async () => {
    const a = await t.createAccount();
    for (let i = 0; i < 2 * LIMIT; i++) await post(a, '{"data": ');
    expect((await post(a, '{"data": ')).statusCode).toBe(429);
    expect((await post(a, JSON.stringify(validSend(a)))).statusCode).toBe(429);
  });
});

/** Sends a request's head and the first part of a large declared body over a socket; resolves with what came back once the server closes. */
function postPartly(
  port: number,
  headers: Record<string, string>,
): Promise<{ answer: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ answer, closed: false });
    }, 3000);
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ answer, closed: true });
    });
    const head = Object.entries({
      ...headers,
      'content-type': 'application/json',
      'content-length': '5000000',
    })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    socket.write(
      `POST /v1/email/messages HTTP/1.1\r\nhost: localhost\r\n${head}\r\n{"data": {"message": {"x": "`,
    );
  });
}

describe('a request refused before its body is read', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp({ config: { rateLimitPerMinute: 1 } });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as net.AddressInfo).port;
  });
  afterAll(() => t.close());

  it('is answered 429 and its connection closed without waiting for the rest of the body', async () => {
    const a = await t.createAccount();
    await t.app.inject({ method: 'GET', url: '/v1/email/dynamic_templates', headers: a.auth });
    const { answer, closed } = await postPartly(port, a.auth);
    expect(answer).toMatch(/^HTTP\/1\.1 429 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(closed).toBe(true);
  });

  it('is answered 401 and closed the same way for a wrong key', async () => {
    const { answer, closed } = await postPartly(port, { authorization: 'Bearer sp_wrong' });
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
    expect(closed).toBe(true);
  });
});
