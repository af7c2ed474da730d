/** `sealpost account suppress-transactional <username> on|off` run as a user runs it, against a test database. */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../test/harness.ts';
import { runSealpost } from './cli.test-support.ts';
import { createAccount } from '../accounts/accounts.service.ts';
import { findSettings } from '../accounts/settings.repository.ts';

describe('sealpost account suppress-transactional', () => {
  const masterKey = randomBytes(32).toString('base64');
  let t: TestContext;
  let customerId: number;

  const sealpost = (args: string[]) => runSealpost(t.scratch.url, masterKey, args);
  const stored = async () => (await findSettings(t.ctx.database.db, customerId))?.suppress_transactional;

  beforeAll(async () => {
    t = await createTestContext({ config: { masterKey } });
    customerId = (await createAccount(t.ctx.database.db, 'clinic')).customer_id;
  });
  afterAll(() => t.close());

  it('turns the switch on and off for the named account', async () => {
    const on = await sealpost(['account', 'suppress-transactional', 'clinic', 'on']);
    expect(on, on.stderr).toMatchObject({ code: 0, stdout: 'transactional suppression is on for clinic\n' });
    expect(await stored()).toBe(1);
    const off = await sealpost(['account', 'suppress-transactional', 'clinic', 'off', '--json']);
    expect(JSON.parse(off.stdout)).toMatchObject({ suppress_transactional: false });
    expect(await stored()).toBe(0);
  });

  it('refuses a state other than on or off, and an unknown account, with exit code 1', async () => {
    const bad = await sealpost(['account', 'suppress-transactional', 'clinic', 'maybe']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('"on" or "off"');
    const unknown = await sealpost(['account', 'suppress-transactional', 'nobody', 'on']);
    expect(unknown.code).toBe(1);
    expect(await stored()).toBe(0);
  });
});
