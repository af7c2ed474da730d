import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';

describe('out-of-range numbers in queries', () => {
  let t: TestApp;
  let a: TestAccount;
  beforeAll(async () => {
    t = await createTestApp();
    a = await t.createAccount();
  });
  afterAll(() => t.close());

  it.each([
    (id: number) => `/v1/forms/api/forms?customer_id=${id}&page=100000000000000000000`,
    () => '/v1/marketing/subscribers?page=1e20',
  ])('answers 400, not 500, for a page number past any page (%#)', async (url) => {
    const res = await t.app.inject({ method: 'GET', url: url(a.account.customer_id), headers: a.auth });
    expect(res.statusCode).toBe(400);
    expect(res.json().error_code).toBe('request.invalid');
  });
});
