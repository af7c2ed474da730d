/** The route table snapshot: docs/routes.md lists every route the app serves, so the surface reads in one place. */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/harness.ts';
import { classify } from '../http/surfaces.ts';

const DOC = new URL('../../docs/routes.md', import.meta.url);
const REGENERATE = 'SEALPOST_WRITE_ROUTES=1 npx vitest run src/app/routes.test.ts';

const routes: { method: string; url: string }[] = [];
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    onRoute: (r) => {
      for (const method of [r.method].flat()) routes.push({ method, url: r.url });
    },
  });
});
afterAll(() => t.close());

/** Who may call a route: no key, or a key of a scope (and of the account the path names). */
function scopeOf(method: string, url: string): string {
  const surface = classify(method, url);
  if (surface.kind === 'public') return 'public';
  return surface.username === undefined ? surface.scope : `${surface.scope}, account in path`;
}

/** The table: one row per path and scope, GET and its HEAD twin on one row. */
function table(): string {
  const rows = new Map<string, { methods: Set<string>; url: string; scope: string }>();
  for (const { method, url } of routes) {
    const scope = scopeOf(method === 'HEAD' ? 'GET' : method, url);
    const key = `${url} ${method === 'HEAD' ? 'GET' : method}`;
    const row = rows.get(key) ?? { methods: new Set<string>(), url, scope };
    row.methods.add(method);
    rows.set(key, row);
  }
  const order = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
  const lines = [...rows.values()]
    .map((r) => ({ ...r, method: order.filter((m) => r.methods.has(m)).join(', ') }))
    .sort(
      (a, b) =>
        (a.url < b.url ? -1 : a.url > b.url ? 1 : 0) ||
        order.indexOf(a.method.split(',')[0]!) - order.indexOf(b.method.split(',')[0]!),
    )
    .map((r) => `| ${r.method} | \`${r.url}\` | ${r.scope} |`);
  return [
    '# Routes',
    '',
    'Every route the API serves: method, path and who may call it (`public`: no key; otherwise the scope an API key',
    'needs, and whether the path names the account). Generated from the running app by `src/app/routes.test.ts`,',
    'which fails when this file is stale (prettier leaves it as generated); regenerate with:',
    '',
    '```',
    REGENERATE,
    '```',
    '',
    '| Method | Path | Scope |',
    '| --- | --- | --- |',
    ...lines,
    '',
  ].join('\n');
}

it('docs/routes.md is the current route table', () => {
  const current = table();
  if (process.env.SEALPOST_WRITE_ROUTES === '1') writeFileSync(DOC, current);
  const written = readFileSync(DOC, 'utf8');
  expect(written === current, `docs/routes.md is stale; regenerate it with: ${REGENERATE}`).toBe(true);
});
