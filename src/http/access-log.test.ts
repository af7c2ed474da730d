import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, expect, it } from 'vitest';
import type { Config } from '../config/schema.ts';
import { loggerOptions } from '../runtime.ts';
import { createTestApp, type TestApp } from '../test/harness.ts';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** A test app whose log at `level` is captured as parsed lines. */
async function appLoggingAt(level: string): Promise<{ t: TestApp; lines: Record<string, unknown>[] }> {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  t = await createTestApp({ log: pino(loggerOptions({ logLevel: level } as Config), sink) });
  return { t, lines };
}

const requestLines = (lines: Record<string, unknown>[]) =>
  lines.filter((l) => l.msg === 'request completed' || l.msg === 'incoming request');

it('writes one line per request at info: id, method, redacted route, client, status and time', async () => {
  const { t, lines } = await appLoggingAt('info');
  const res = await t.app.inject({
    method: 'GET',
    url: '/s/secret-token-123?email=someone@example.org',
    headers: { 'x-request-id': 'req-access-1' },
  });
  expect(requestLines(lines)).toEqual([
    expect.objectContaining({
      level: 30,
      msg: 'request completed',
      reqId: 'req-access-1',
      req: { method: 'GET', url: '/s/[redacted]?[redacted]', remoteAddress: '127.0.0.1' },
      res: { statusCode: res.statusCode },
      responseTime: expect.any(Number),
    }),
  ]);
  expect(JSON.stringify(lines)).not.toContain('secret-token-123');
});

it('adds a line when the request arrives at debug, and writes none at warn', async () => {
  const debug = await appLoggingAt('debug');
  await debug.t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'req-access-2' } });
  expect(requestLines(debug.lines).map((l) => [l.msg, l.reqId])).toEqual([
    ['incoming request', 'req-access-2'],
    ['request completed', 'req-access-2'],
  ]);
  await debug.t.close();
  t = undefined;
  const warn = await appLoggingAt('warn');
  await warn.t.app.inject({ method: 'GET', url: '/healthz' });
  expect(requestLines(warn.lines)).toEqual([]);
});

it("writes the line pino itself would write for the same fields, field for field and in pino's order", async () => {
  const { t, lines } = await appLoggingAt('info');
  await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'req-access-3' } });
  const [line] = requestLines(lines);
  t.app.log.child({ reqId: 'req-access-3' }).info(
    {
      req: { method: 'GET', url: '/healthz', ip: '127.0.0.1' },
      res: { statusCode: 200 },
      responseTime: line!.responseTime,
    },
    'request completed',
  );
  const reference = lines.at(-1)!;
  expect(Object.keys(line!)).toEqual(Object.keys(reference));
  expect({ ...line, time: 0 }).toEqual({ ...reference, time: 0 });
  expect(line!.service).toBe('sealpost');
  expect(Math.abs((line!.time as number) - Date.now())).toBeLessThan(60_000);
});
