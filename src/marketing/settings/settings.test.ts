import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { marketingClient } from '../marketing.test-support.ts';

describe('marketing settings', () => {
  let t: TestApp;
  let acme: TestAccount;
  let call: ReturnType<typeof marketingClient>;

  beforeAll(async () => {
    t = await createTestApp();
    acme = await t.createAccount();
    call = marketingClient(t, acme);
  });
  afterAll(() => t.close());

  const storedRows = async () => t.ctx.database.db.selectFrom('marketing_settings').selectAll().execute();

  it('shows suppression off and never changed for an account that never set it', async () => {
    const res = await call('GET', '/settings');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({
      type: 'marketing_settings',
      attributes: {
        suppress_transactional: false,
        postal_address: null,
        brand_name: null,
        brand_color: null,
        brand_logo_image_id: null,
        updated_at: null,
      },
    });
  });

  it('keeps the postal address for the footer of campaign emails, and removes it when emptied', async () => {
    const set = await call('PATCH', '/settings', {
      settings: { postal_address: '  Riverside Clinic\r\n1 River Road, Springfield  ' },
    });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().data.attributes.postal_address).toBe('Riverside Clinic\n1 River Road, Springfield');
    expect(set.json().data.attributes.suppress_transactional).toBe(false);
    const long = await call('PATCH', '/settings', { settings: { postal_address: 'x'.repeat(501) } });
    expect(long.statusCode).toBe(400);
    expect((await call('GET', '/settings')).json().data.attributes.postal_address).toBe(
      'Riverside Clinic\n1 River Road, Springfield',
    );
    const cleared = await call('PATCH', '/settings', { settings: { postal_address: ' ' } });
    expect(cleared.statusCode, cleared.body).toBe(200);
    expect(cleared.json().data.attributes).toMatchObject({ postal_address: null });
    expect((await call('GET', '/settings')).json().data.attributes.postal_address).toBeNull();
  });

  it('turns suppression on and off with PATCH, and GET under the bare prefix shows the change', async () => {
    const on = await call('PATCH', '/settings', { settings: { suppress_transactional: true } });
    expect(on.statusCode, on.body).toBe(200);
    expect(on.json().data.attributes.suppress_transactional).toBe(true);
    expect(on.json().data.attributes.updated_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const bare = marketingClient(t, acme, { bare: true });
    expect((await bare('GET', '/settings')).json().data.attributes.suppress_transactional).toBe(true);
    await bare('PATCH', '/settings', { settings: { suppress_transactional: false } });
    expect((await call('GET', '/settings')).json().data.attributes.suppress_transactional).toBe(false);
  });

  it('keeps the setting of one account away from another account', async () => {
    const other = await t.createAccount();
    await call('PATCH', '/settings', { settings: { suppress_transactional: true } });
    expect(
      (await marketingClient(t, other)('GET', '/settings')).json().data.attributes.suppress_transactional,
    ).toBe(false);
  });

  it('refuses a value that is not a boolean with 400 and changes nothing', async () => {
    await call('PATCH', '/settings', { settings: { suppress_transactional: false } });
    const before = await storedRows();
    for (const settings of [
      { suppress_transactional: 'sometimes' },
      { suppress_transactional: [1, 2] },
      { colour: 'blue' },
    ]) {
      const res = await call('PATCH', '/settings', { settings });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error_code).toBe('request.invalid');
    }
    expect((await call('PATCH', '/settings', {})).statusCode).toBe(400);
    expect(await storedRows()).toEqual(before);
  });

  it('refuses a key without the marketing scope with 401 and keeps the setting', async () => {
    const mailOnly = await t.createAccount({ scopes: 'email' });
    const res = await marketingClient(t, mailOnly)('PATCH', '/settings', {
      settings: { suppress_transactional: true },
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().error_code).toBe('auth.scope');
    expect(await storedRows()).not.toContainEqual(
      expect.objectContaining({ customer_id: mailOnly.account.customer_id }),
    );
  });
});
