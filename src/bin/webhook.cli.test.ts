/** `sealpost webhook add|list|remove` run as a user runs them, against a test database. */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../test/harness.ts';
import { createAccount } from '../accounts/accounts.service.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('sealpost webhook', () => {
  const masterKey = randomBytes(32).toString('base64');
  let t: TestContext;

  /** Runs `sealpost <args>` on the test database; resolves with the exit code and output. */
  function sealpost(
    args: string[],
    extra: Record<string, string> = {},
  ): Promise<{ code: number; stdout: string; stderr: string }> {
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('SEALPOST_')) env[k] = v;
    Object.assign(env, {
      SEALPOST_DATABASE_URL: t.scratch.url,
      SEALPOST_MASTER_KEY: masterKey,
      SEALPOST_LOG_LEVEL: 'warn',
      ...extra,
    });
    return new Promise((resolve) =>
      execFile(
        process.execPath,
        ['bin/sealpost.js', ...args],
        { cwd: ROOT, env, timeout: 20_000 },
        (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
      ),
    );
  }

  beforeAll(async () => {
    t = await createTestContext({ config: { masterKey } });
    await createAccount(t.ctx.database.db, 'clinic');
  });
  afterAll(() => t.close());

  it('adds, lists and removes an endpoint; the signing key is printed only when added', async () => {
    const added = await sealpost(
      [
        'webhook',
        'add',
        '--account',
        'clinic',
        '--url',
        'http://127.0.0.1:9000/in',
        '--events',
        'api_mail_log_delivered,api_mail_log_opened',
        '--json',
      ],
      { SEALPOST_WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
    );
    expect(added.code, added.stderr).toBe(0);
    const endpoint = JSON.parse(added.stdout);
    expect(endpoint).toMatchObject({
      target_url: 'http://127.0.0.1:9000/in',
      events: ['api_mail_log_delivered', 'api_mail_log_opened'],
      signing_key: expect.stringMatching(/^whsec_/),
    });

    const listed = await sealpost(['webhook', 'list', '--account', 'clinic']);
    expect(listed.stdout).toContain(
      `${endpoint.id}\tactive\thttp://127.0.0.1:9000/in\tapi_mail_log_delivered,api_mail_log_opened`,
    );
    expect(listed.stdout).not.toContain(endpoint.signing_key);

    const removed = await sealpost(['webhook', 'remove', endpoint.id]);
    expect(removed).toMatchObject({ code: 0, stdout: `removed webhook endpoint ${endpoint.id}\n` });
    expect((await sealpost(['webhook', 'list', '--account', 'clinic'])).stdout).toBe(
      'no webhook endpoints\n',
    );
  });

  it('refuses a private target unless configured to allow it, and an unknown event, with exit status 1', async () => {
    const refused = await sealpost([
      'webhook',
      'add',
      '--account',
      'clinic',
      '--url',
      'http://127.0.0.1:9000/in',
      '--events',
      'api_mail_log_delivered',
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: target_url is 127\.0\.0\.1, a private/);
    const unknown = await sealpost([
      'webhook',
      'add',
      '--account',
      'clinic',
      '--url',
      'https://93.184.215.14/in',
      '--events',
      'api_mail_log_bounced',
      '--signing-key',
      'a-long-enough-key-123',
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/unknown event "api_mail_log_bounced"/);
  });
});
