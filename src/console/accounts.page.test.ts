/**
 * The operator's account switcher over HTTP: an operator lists and searches accounts, switches, and every page then
 * shows the chosen account, read only, with the switch in that account's audit trail; switching back restores their
 * own. A user who is not an operator is refused by the server, even with a session pointed at another account.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { hashToken } from '../users/users.service.ts';
import { createTestUser, signInClient, type ConsoleClient } from './console.test-support.ts';

let t: TestApp;
let home: TestAccount;
let clinic: TestAccount;
let operator: ConsoleClient;
let operatorId: string;
let owner: ConsoleClient;

beforeAll(async () => {
  t = await createTestApp();
  home = await t.createAccount({ username: 'operations' });
  clinic = await t.createAccount({ username: 'northclinic' });
  const op = await createTestUser(t, home.account.customer_id, 'owner', { operator: true });
  operatorId = op.id;
  operator = await signInClient(t.app, op.email);
  owner = await signInClient(t.app, (await createTestUser(t, home.account.customer_id, 'owner')).email);
});
afterAll(async () => t?.close());

const switchTo = (c: ConsoleClient, account: string) =>
  c.post('/console/accounts/switch', { _csrf: c.csrf, account });

describe('operator account switching', () => {
  it('lists and searches every account for an operator', async () => {
    const all = await operator.get('/console/accounts');
    expect(all.statusCode).toBe(200);
    expect(all.body).toContain('northclinic');
    expect(all.body).toContain('Your account, shown now');
    const found = await operator.get('/console/accounts?search=north');
    expect(found.body).toContain('northclinic');
    expect(found.body).not.toMatch(/<td data-label="Account">operations<\/td>/);
    expect((await operator.get('/console/accounts?search=%25')).body).toContain('No account matches');
    expect((await operator.get('/console')).body).toContain('Switch account');
  });

  it('switches: every page shows the chosen account, read only, and the switch is audited there', async () => {
    const res = await switchTo(operator, String(clinic.account.customer_id));
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/console');
    const overview = await operator.get('/console');
    expect(overview.body).toContain('You are viewing the account <strong>northclinic</strong>');
    expect(overview.body).toContain('Account <strong>northclinic</strong>');
    const domains = await operator.get('/console/domains');
    expect(domains.body).toContain(clinic.domain);
    expect(domains.body).not.toContain(home.domain);
    expect(domains.body).not.toContain('Add a domain');

    const key = await operator.post('/console/keys', {
      _csrf: operator.csrf,
      description: 'sneaky',
      scopes: 'email',
    });
    expect(key.statusCode).toBe(403);
    const keys = await t.ctx.database.db
      .selectFrom('api_keys')
      .select('description')
      .where('customer_id', '=', clinic.account.customer_id)
      .execute();
    expect(keys.map((k) => k.description)).not.toContain('sneaky');
    expect((await operator.get('/console/captured')).statusCode).toBe(200);
    expect((await operator.get('/console/settings/users')).statusCode).toBe(403);

    const audit = await t.ctx.database.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'operator.switch_account')
      .execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      customer_id: clinic.account.customer_id,
      actor_type: 'user',
      actor_id: operatorId,
      target: `account:${clinic.account.customer_id}`,
    });
    expect(JSON.parse(audit[0]!.detail)).toEqual({
      from: home.account.customer_id,
      to: clinic.account.customer_id,
      operator_account: home.account.customer_id,
    });

    await switchTo(operator, String(home.account.customer_id));
    const back = await operator.get('/console/domains');
    expect(back.body).not.toContain('You are viewing the account');
    expect(back.body).toContain(home.domain);
    expect(back.body).toContain('Add a domain');
  });

  it('refuses a user who is not an operator, on the server, and a switch without the form token', async () => {
    expect((await owner.get('/console/accounts')).statusCode).toBe(403);
    const refused = await switchTo(owner, String(clinic.account.customer_id));
    expect(refused.statusCode).toBe(403);
    expect((await owner.get('/console/domains')).body).toContain(home.domain);
    // Even a session row pointed at another account shows a non-operator their own.
    await t.ctx.database.db
      .updateTable('console_sessions')
      .set({ acting_customer_id: clinic.account.customer_id })
      .where('id', '=', hashToken(/sealpost_console=([^;]+)/.exec(owner.cookie)![1]!))
      .execute();
    const page = await owner.get('/console/domains');
    expect(page.body).toContain(home.domain);
    expect(page.body).not.toContain(clinic.domain);
    const forged = await operator.post('/console/accounts/switch', {
      _csrf: 'forged',
      account: String(clinic.account.customer_id),
    });
    expect(forged.statusCode).toBe(403);
    expect((await operator.get('/console')).body).not.toContain('You are viewing the account');
    const switches = await t.ctx.database.db
      .selectFrom('audit_log')
      .select('actor_id')
      .where('action', '=', 'operator.switch_account')
      .execute();
    expect(switches.every((s) => s.actor_id === operatorId)).toBe(true);
  });
});
