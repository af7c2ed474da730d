/** The app's request hook: the worker's pacer learns of every request that arrives. */
import { expect, it, onTestFinished } from 'vitest';
import { createTestApp } from '../test/harness.ts';

it('calls onRequest once for every request that arrives, answered or refused, but not for probes or polls', async () => {
  let seen = 0;
  const t = await createTestApp({ onRequest: () => seen++ });
  onTestFinished(() => t.close());
  expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  expect((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode).not.toBe(404);
  // The send page's live progress, polled every second while a campaign sends (a redirect to sign in here).
  const poll = await t.app.inject({ method: 'GET', url: '/console/campaigns/sends/1/progress.json' });
  expect(poll.statusCode).not.toBe(404);
  expect(seen).toBe(0);
  expect((await t.app.inject({ method: 'GET', url: '/v1/email/messages' })).statusCode).toBe(401);
  expect((await t.app.inject({ method: 'GET', url: '/v1/no-such-route' })).statusCode).toBe(401);
  expect(seen).toBe(2);
});
