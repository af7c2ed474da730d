/** `sealpost health` probes each role as what it serves: the api's /healthz, the SMTP greeting, the worker's heartbeat. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../test/harness.ts';
import { startRoles } from '../app/roles.ts';
import { checkHealth } from './health.ts';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({
    config: {
      httpPort: 0,
      smtpHost: '127.0.0.1',
      smtpSubmissionPort: 0,
      smtpTlsPort: 0,
      smtpPort25: 0,
      nodeName: 'health-a',
    },
  });
});
afterAll(() => t.close());

it('reports a running worker by its fresh heartbeat, and a node without one as down', async () => {
  const running = await startRoles(t.ctx, ['worker']);
  try {
    const [up] = await checkHealth(t.ctx.config, ['worker']);
    expect(up).toMatchObject({ role: 'worker', ok: true, detail: expect.stringContaining('node health-a') });
    const [other] = await checkHealth({ ...t.ctx.config, nodeName: 'health-b' }, ['worker']);
    expect(other).toMatchObject({ ok: false, detail: 'no heartbeat of a worker on node health-b' });
  } finally {
    await running.stop();
  }
});

it('reports the api by its /healthz and smtp by its greeting, and each as down once stopped', async () => {
  const running = await startRoles(t.ctx, ['api']);
  const httpPort = Number(new URL(running.httpAddress!).port);
  const { startSmtp } = await import('../smtp/smtp.server.ts');
  const { testCertificate } = await import('../test/smtp-sink.ts');
  const smtp = await startSmtp(t.ctx, [{ name: 'submission', port: 0, secure: false }], testCertificate());
  const config = {
    ...t.ctx.config,
    httpHost: '0.0.0.0',
    httpPort,
    smtpSubmissionPort: smtp.ports.submission!,
  };
  expect((await checkHealth(config, ['api', 'smtp'])).map((r) => [r.role, r.ok])).toEqual([
    ['api', true],
    ['smtp', true],
  ]);
  await running.stop();
  await smtp.stop();
  expect((await checkHealth(config, ['api', 'smtp'])).map((r) => [r.role, r.ok])).toEqual([
    ['api', false],
    ['smtp', false],
  ]);
});
