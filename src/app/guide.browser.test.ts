/** A guide as a person reads it in Chromium: the index, a page with wide tables, an anchor the README links. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createTestApp, type TestApp } from '../test/harness.ts';
import { checkPage, expectNoSidewaysScroll, openInChromium } from '../console/browser.test-support.ts';

let t: TestApp;
let browser: Browser;
let base: string;
beforeAll(async () => {
  t = await createTestApp();
  ({ base, browser } = await openInChromium(t));
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('the guides in Chromium', () => {
  it('leads from the index to a guide and to the section a link names, readable on a phone', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/docs/guide`);
    await checkPage(page, 'guide-index');
    await page.getByRole('link', { name: 'Running Sealpost: roles, health, metrics, backups' }).click();
    await page.getByRole('heading', { name: 'Operations', level: 1 }).waitFor();
    await checkPage(page, 'guide-operations');
    await expectNoSidewaysScroll(page, 'guide-operations');
    await page.goto(`${base}/docs/guide/operations.md#moving-to-postgresql`);
    const top = await page.getByRole('heading', { name: 'Moving to PostgreSQL' }).boundingBox();
    expect(top!.y).toBeLessThan(100);
    await page.close();
  });
});
