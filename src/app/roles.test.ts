/** startRoles: with the api and the worker in one process, API requests reach the worker's pacer. */
import { expect, it } from 'vitest';
import { createTestContext } from '../test/harness.ts';
import { startRoles } from './roles.ts';

it('tells the shared worker of API requests, but not of probes, and paces nothing when the worker runs alone', async () => {
  const t = await createTestContext();
  const running = await startRoles(t.ctx, ['api', 'worker']);
  try {
    const url = running.httpAddress!;
    expect(running.contended?.()).toBe(false);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/metrics`)).status).toBe(200);
    expect(running.contended?.()).toBe(false);
    expect((await fetch(`${url}/v1/email/messages`)).status).toBe(401);
    expect(running.contended?.()).toBe(true);
  } finally {
    await running.stop();
  }
  const alone = await startRoles(t.ctx, ['worker']);
  try {
    expect(alone.contended).toBeUndefined();
  } finally {
    await alone.stop();
    await t.close();
  }
});
