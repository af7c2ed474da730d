/** The guides under /docs/guide: every page the README links is served, as HTML with working anchors or as Markdown. */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/harness.ts';
import { headingId } from './guide.routes.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const page = (file: string, accept = 'text/html,application/xhtml+xml') =>
  t.app.inject({ method: 'GET', url: `/docs/guide/${file}`, headers: { accept } });

describe('the guides', () => {
  it('serves every guide the README links, with the anchor each link names', async () => {
    const readme = readFileSync('README.md', 'utf8');
    const links = [...readme.matchAll(/\]\(docs\/([a-z-]+\.md)(?:#([a-z0-9-]+))?\)/g)];
    expect(links.length).toBeGreaterThan(10);
    for (const [, file, anchor] of links) {
      const res = await page(file!);
      expect(res.statusCode, file).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      if (anchor) expect(res.body, `${file}#${anchor}`).toContain(`id="${anchor}"`);
    }
  });

  it('answers Markdown to a client that does not ask for HTML, and 404 for a file that is not a guide', async () => {
    const md = await page('errors.md', '*/*');
    expect(md.headers['content-type']).toMatch(/^text\/markdown/);
    expect(md.body).toBe(readFileSync('docs/errors.md', 'utf8'));
    for (const file of ['../README.md', 'grafana-dashboard.json', 'nope.md'])
      expect((await page(encodeURIComponent(file))).statusCode, file).toBe(404);
  });

  it('renders tables and headings, under the pages’ strict policy, and lists every guide on its index', async () => {
    const res = await page('configuration.md');
    expect(res.body).toMatch(/<h1 id="configuration">/);
    expect(res.body).toContain('<td><code>SEALPOST_DATABASE_URL</code></td>');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    const index = await t.app.inject({ method: 'GET', url: '/docs/guide' });
    for (const file of ['console.md', 'deploy.md', 'email.md', 'operations.md'])
      expect(index.body).toContain(`href="/docs/guide/${file}"`);
  });

  it('names headings as GitHub does', () => {
    expect(headingId('Moving to PostgreSQL')).toBe('moving-to-postgresql');
    expect(headingId('Limits and caps')).toBe('limits-and-caps');
    expect(headingId('Operations pages')).toBe('operations-pages');
    expect(headingId('`SEALPOST_X` and the 2FA: what?')).toBe('sealpost_x-and-the-2fa-what');
  });
});
