/** The `next` target after sign-in stays inside `/console` whatever dot segments, encodings or slashes it carries. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/harness.ts';
import { createTestUser, signInClient, type ConsoleClient } from './console.test-support.ts';

let t: TestApp;
let user: ConsoleClient;

beforeAll(async () => {
  t = await createTestApp();
  const a = await t.createAccount();
  user = await signInClient(t.app, (await createTestUser(t, a.account.customer_id, 'viewer')).email);
});
afterAll(() => t.close());

/** Where the sign-in page sends a signed-in user who asks for `next`. */
async function landing(next: string): Promise<string | undefined> {
  const res = await user.get(`/console/sign-in?next=${encodeURIComponent(next)}`);
  expect(res.statusCode).toBe(303);
  return res.headers.location as string | undefined;
}

describe('sign-in next', () => {
  it.each([
    '/console/../admin',
    '/console/..',
    '/console/%2e%2e/metrics',
    '/console/%2E%2E/%2e%2e/openapi.json',
    '/console/.%2e/x',
    '/console/..%2fmetrics',
    '/console/..%5cmetrics',
    '/console/%252e%252e/x',
    '/console\\..\\metrics',
    '/console/..\\\\evil.example',
    '/console/..//evil.example',
    '//evil.example/console',
    '/\\evil.example/console',
    '/console//evil.example',
    'https://evil.example/console',
    '/console/%0a/x',
    '/console\t/x',
    '/consolex',
    '/metrics?/console',
  ])('sends %s to the overview', async (next) => {
    expect(await landing(next)).toBe('/console');
  });

  it.each([
    ['/console/settings', '/console/settings'],
    ['/console/domains?x=1', '/console/domains?x=1'],
    ['/console/forms/./abc', '/console/forms/abc'],
    ['/console/forms/x/../abc', '/console/forms/abc'],
    ['/console/messages?q=50%25', '/console/messages?q=50%25'],
  ])('keeps %s inside the console as %s', async (next, expected) => {
    expect(await landing(next)).toBe(expected);
  });
});
