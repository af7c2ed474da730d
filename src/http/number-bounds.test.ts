/**
 * Paging and other numeric query values that are not finite or not exact integers (`1e309`, `Infinity`, 20 digits) on
 * every list operation of the served document: 400 with the documented body, never a 500 from the database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { createForm } from '../forms/forms.test-support.ts';

const VALUES = ['1e309', 'Infinity', '-Infinity', '12345678901234567890'];

interface Parameter {
  name: string;
  in: string;
  schema?: { type?: string };
}

let t: TestApp;
let a: TestAccount;
let numericQueries: { path: string; name: string }[];

beforeAll(async () => {
  t = await createTestApp({ config: { rateLimitPerMinute: 0, authFailuresPerWindow: 0 } });
  a = await t.createAccount();
  await createForm(t.app, a.auth);
  const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
    paths: Record<string, Record<string, { parameters?: Parameter[] }>>;
  };
  numericQueries = Object.entries(doc.paths).flatMap(([path, ops]) =>
    (ops.get?.parameters ?? [])
      .filter((p) => p.in === 'query' && (p.schema?.type === 'integer' || p.schema?.type === 'number'))
      .map((p) => ({ path, name: p.name })),
  );
});
afterAll(() => t.close());

describe('numbers a query may carry', () => {
  it('refuses infinite and inexact paging values on every list operation with 400 request.invalid', async () => {
    expect(numericQueries.map((q) => q.name)).toEqual(expect.arrayContaining(['page', 'items', 'limit']));
    const wrong: string[] = [];
    for (const { path, name } of numericQueries)
      for (const value of VALUES) {
        const url = `${path.replace(/\{(api_)?username\}/, a.account.username).replace(/\{[^}]+\}/g, '1')}?${name}=${encodeURIComponent(value)}`;
        const res = await t.app.inject({ method: 'GET', url, headers: a.auth });
        const body = res.json() as { error_code?: string; errors?: unknown[] };
        if (res.statusCode >= 500 || (res.statusCode === 400 && body.error_code !== 'request.invalid'))
          wrong.push(`${url} → ${res.statusCode} ${res.body.slice(0, 120)}`);
        if (res.statusCode === 200) wrong.push(`${url} → 200`);
      }
    expect(wrong).toEqual([]);
  });

  it('names the field and the rule in the refusal', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/v1/email/suppressions?page=1e309',
      headers: a.auth,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      error_code: 'request.invalid',
      errors: [{ code: 400, details: expect.stringContaining('page: must be a finite number') }],
    });
  });

  it('still takes an ordinary page number', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/email/suppressions?page=2', headers: a.auth });
    expect(res.statusCode).toBe(200);
  });
});
