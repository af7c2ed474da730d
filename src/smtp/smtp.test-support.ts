/** Test helpers for the SMTP server: an app with a server on loopback listeners, built before a file's tests. */
import { afterAll, beforeAll } from 'vitest';
import type { Config } from '../config/schema.ts';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { testCertificate } from '../test/smtp-sink.ts';
import { startSmtp, type ListenerSpec, type RunningSmtp } from './smtp.server.ts';

/** The app, its account and its SMTP server: filled in place before the tests, so they may be named at the top level. */
export interface SmtpTestBed {
  t: TestApp;
  /** The account made for the tests (left empty with `account: false`). */
  acme: TestAccount;
  smtp: RunningSmtp;
}

/**
 * Registers hooks that build an app (`smtpHost` 127.0.0.1 and `config`), an account unless `account` is false, and an
 * SMTP server on `listeners`, and stop them after the tests.
 */
export function smtpTestBed(
  config: Partial<Config>,
  listeners: ListenerSpec[],
  opts: { account?: boolean } = {},
): SmtpTestBed {
  const t = {} as TestApp;
  const acme = {} as TestAccount;
  const smtp = {} as RunningSmtp;
  beforeAll(async () => {
    Object.assign(t, await createTestApp({ config: { smtpHost: '127.0.0.1', ...config } }));
    if (opts.account !== false) Object.assign(acme, await t.createAccount());
    Object.assign(smtp, await startSmtp(t.ctx, listeners, testCertificate()));
  });
  afterAll(async () => {
    await smtp.stop?.();
    await t.close?.();
  });
  return { t, acme, smtp };
}
