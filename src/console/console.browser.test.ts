/** The console in headless Chromium: sign-in and the way back, a wrong password, every page on a phone, and axe-core. */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { createTestUser, TEST_PASSWORD } from './console.test-support.ts';
import type { User } from '../users/users.service.ts';

const CHROMIUM = '/usr/bin/chromium';
const present = existsSync(CHROMIUM);
if (!present) console.warn(`console browser test skipped: ${CHROMIUM} is missing (apt-get install chromium)`);
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SHOTS = '.test-artifacts/console';

let t: TestApp;
let a: TestAccount;
let owner: User;
let browser: Browser;
let base: string;

/** Serious and critical axe-core violations on the page, as "rule: target" lines. */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const result = (await page.evaluate(() => (globalThis as unknown as { axe: { run(): Promise<unknown> } }).axe.run())) as {
    violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
  };
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe.skipIf(!present)('console in Chromium', () => {
  beforeAll(async () => {
    t = await createTestApp();
    a = await t.createAccount({ username: 'northclinic' });
    owner = await createTestUser(t, a.account.customer_id, 'owner', { email: 'owner@northclinic.example' });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    mkdirSync(SHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('signs in after a wrong password and returns to the page asked for', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    page.setDefaultTimeout(8000);
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && !/status of 40[13]/.test(m.text()) && errors.push(m.text()));
    await page.goto(`${base}/console/settings`);
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
    await page.screenshot({ path: `${SHOTS}/sign-in.png`, fullPage: true });
    expect(await axeViolations(page)).toEqual([]);

    await signIn(page, owner.email, 'not the password');
    await page.getByText('the email address or password is not right').waitFor();
    await page.screenshot({ path: `${SHOTS}/sign-in-wrong-password.png`, fullPage: true });

    await signIn(page, owner.email, TEST_PASSWORD);
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    expect(page.url()).toBe(`${base}/console/settings`);
    await page.screenshot({ path: `${SHOTS}/settings.png`, fullPage: true });
    expect(await axeViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
