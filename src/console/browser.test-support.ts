/** Test helpers for console pages in Chromium: Debian's browser, screenshots at two widths, and axe-core's serious and critical findings. */
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { launchChromium } from '../test/browser.ts';
import { TEST_PASSWORD } from './console.test-support.ts';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** Where screenshots go. */
export const SHOTS = '.test-artifacts/console';

export { launchChromium };

/** Saves a screenshot without checks (a page that is about to change). */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  const shot = (timeout: number) =>
    page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true, timeout });
  try {
    await shot(15_000);
  } catch (err) {
    // A page whose own script navigates (a progress page reloading when its job ends) can stall a capture begun just
    // before: take it again once the new document has loaded.
    if (!String(err).includes('Timeout')) throw err;
    await page.waitForLoadState('load');
    await shot(30_000);
  }
}

/** Screenshots the page at desktop and phone width and asserts axe finds nothing serious or critical. */
export async function checkPage(page: Page, name: string): Promise<void> {
  await page.setViewportSize({ width: 1280, height: 800 });
  await screenshot(page, name);
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, `${name}-phone`);
  await page.setViewportSize({ width: 1280, height: 800 });
  expect(await axeViolations(page), name).toEqual([]);
}

/** Reloads the page; when its own script navigated at the same moment (a poll ending a job), waits for that load. */
export async function reloadPage(page: Page): Promise<void> {
  try {
    await page.reload();
  } catch (err) {
    if (!String(err).includes('ERR_ABORTED')) throw err;
    await page.waitForLoadState('load');
  }
}

/** Serious and critical axe-core violations on the page, as "rule: target" lines. */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const result = (await page.evaluate(() =>
    (globalThis as unknown as { axe: { run(): Promise<unknown> } }).axe.run(),
  )) as {
    violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
  };
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Asserts the page does not scroll sideways on a 390 px phone (the viewport is put back to desktop width after). */
export async function expectNoSidewaysScroll(page: Page, name: string): Promise<void> {
  await page.setViewportSize({ width: 390, height: 844 });
  const wide = await page.evaluate(
    () =>
      (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document
        .documentElement.scrollWidth,
  );
  await page.setViewportSize({ width: 1280, height: 800 });
  expect(wide, `${name} is ${wide}px wide on a 390px phone`).toBeLessThanOrEqual(390);
}

/**
 * Asserts what a phone user needs on a 390 px page: no table that must be scrolled sideways to reach a column and no
 * text field smaller than a thumb.
 */
export async function expectPhoneReadable(page: Page, name: string): Promise<void> {
  const found = await page.evaluate(() => {
    type El = { scrollWidth: number; clientWidth: number; offsetHeight: number; id: string; name?: string };
    const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): El[] } }).document;
    const wide = [...doc.querySelectorAll('.table-wrap')]
      .filter((w) => w.scrollWidth > w.clientWidth + 1)
      .map((w) => `a table ${w.scrollWidth}px wide in ${w.clientWidth}px`);
    const small = [
      ...doc.querySelectorAll(
        'input:not([type]), input[type="text"], input[type="email"], input[type="url"]',
      ),
    ]
      .filter((i) => i.offsetHeight > 0 && i.offsetHeight < 36)
      .map((i) => `field ${i.id || i.name} is ${i.offsetHeight}px tall`);
    return [...wide, ...small];
  });
  expect(found, name).toEqual([]);
}

/** A new page signed in as `email` (with the test password) on the console at `base`. */
export async function signedInPage(browser: Browser, base: string, email: string): Promise<Page> {
  const page = await browser.newPage();
  page.setDefaultTimeout(15_000);
  await page.goto(`${base}/console/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(TEST_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  return page;
}

/** Makes the app listen on a loopback port and launches Chromium, with the screenshot folder in place. */
export async function openInChromium(t: TestApp): Promise<{ base: string; browser: Browser }> {
  const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  const browser = await launchChromium();
  mkdirSync(SHOTS, { recursive: true });
  return { base, browser };
}

/** An app with one account listening on a loopback port, and Chromium. */
export interface ConsoleBrowserRig {
  t: TestApp;
  a: TestAccount;
  browser: Browser;
  base: string;
  close(): Promise<void>;
}

/** Starts an app (with `opts`), an account, a loopback listener and Chromium. */
export async function startConsoleBrowser(
  opts: Parameters<typeof createTestApp>[0] = {},
): Promise<ConsoleBrowserRig> {
  const t = await createTestApp(opts);
  const a = await t.createAccount();
  const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  const browser = await launchChromium();
  return {
    t,
    a,
    browser,
    base,
    close: async () => {
      await browser.close();
      await t.close();
    },
  };
}

/** Registers hooks that start a rig (see `startConsoleBrowser`) before the tests and close it after; filled in place. */
export function consoleBrowserTestBed(opts: Parameters<typeof createTestApp>[0] = {}): ConsoleBrowserRig {
  const rig = {} as ConsoleBrowserRig;
  beforeAll(async () => {
    Object.assign(rig, await startConsoleBrowser(opts));
  });
  afterAll(async () => rig.close?.());
  return rig;
}
