/**
 * Audiences in Chromium: create a list, import 10,000 rows with two bad ones (dry run, then the import with its
 * progress, across a reload, and the rejected-row report), look at a list and a subscriber, and a viewer who sees no
 * way to change anything. Every page is screenshotted at desktop and phone width and checked with axe-core.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { checkPage, launchChromium, reloadPage, screenshot } from '../browser.test-support.ts';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { startTestWorker } from '../../test/worker.ts';
import type { Worker } from '../../jobs/worker.ts';
import { importQueue } from '../../marketing/imports/import.run.ts';
import { createTestUser, TEST_PASSWORD } from '../console.test-support.ts';

let t: TestApp;
let a: TestAccount;
let browser: Browser;
let base: string;
let worker: Worker;

async function signIn(page: Page, email: string): Promise<void> {
  await page.goto(`${base}/console/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(TEST_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${base}/console`);
}

function bigCsv(): string {
  const lines = ['email,first_name,last_name,Clinic'];
  for (let i = 1; i <= 10_000; i++) {
    if (i === 1234) lines.push('broken-address,Bad,One,North');
    else if (i === 8765) lines.push(',No,Email,South');
    else lines.push(`person${i}@example.org,First${i},Last${i},${i % 2 ? 'North' : 'South'}`);
  }
  return lines.join('\n');
}

describe('audiences in Chromium', () => {
  beforeAll(async () => {
    t = await createTestApp();
    a = await t.createAccount();
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    worker = startTestWorker(t, {}, (ctx) => importQueue(ctx), 200);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    await t?.close();
  });

  it('imports 10,000 rows with two bad ones, shows the progress and offers the rejected rows', async () => {
    const editor = await createTestUser(t, a.account.customer_id, 'editor');
    const page = await browser.newPage();
    // A full-page screenshot of the 10,000-row import waits for fonts; a loaded CI host needs more than 15 s.
    page.setDefaultTimeout(30_000);
    await signIn(page, editor.email);
    await page.getByRole('link', { name: 'Audiences' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Patients');
    await page.getByRole('button', { name: 'Create list' }).click();
    await page.getByText('The list "Patients" was created.').waitFor();
    await checkPage(page, 'audiences');

    await page.getByRole('link', { name: 'Import subscribers from a CSV file' }).click();
    await page.getByLabel('Into list').selectOption({ label: 'Patients' });
    await page
      .getByLabel('CSV file')
      .setInputFiles({ name: 'patients.csv', mimeType: 'text/csv', buffer: Buffer.from(bigCsv()) });
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByText('Column “Clinic”').waitFor();
    expect(await page.getByLabel('Column “email”').inputValue()).toBe('email');
    await checkPage(page, 'audiences-import-mapping');

    await page.getByRole('heading', { name: 'The first 5 rows, as mapped' }).waitFor();
    await page.getByLabel('They are existing patients or clients, and can unsubscribe').check();
    await page.getByRole('button', { name: 'Check the file' }).click();
    await page.getByText('Checked: nothing was written yet').waitFor();
    expect(await page.locator('[data-field="added"]').textContent()).toBe('9,998');
    await page.getByRole('cell', { name: 'broken-address' }).waitFor();
    await checkPage(page, 'audiences-import-checked');

    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.locator('progress').waitFor();
    await screenshot(page, 'audiences-import-progress');
    await reloadPage(page);
    await expect.poll(() => page.locator('progress').count()).toBe(1);
    await page.getByText('Imported', { exact: true }).waitFor({ timeout: 60_000 });
    expect(await page.locator('progress').getAttribute('value')).toBe('100');
    expect(await page.locator('[data-field="failed"]').textContent()).toBe('2');
    expect(await page.locator('[data-field="added"]').textContent()).toBe('9,998');
    await checkPage(page, 'audiences-import-done');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: /every rejected row/ }).click(),
    ]);
    const report = readFileSync((await download.path())!, 'utf8')
      .trim()
      .split('\n');
    expect(report).toEqual([
      'line,email,reason',
      '1235,broken-address,not a valid email address',
      '8766,,the email column is empty',
    ]);

    await page.goto(`${base}/console/audiences`);
    await page.getByRole('link', { name: 'Patients' }).click();
    await page.getByLabel('Search name or email').fill('person9999');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByRole('link', { name: 'person9999@example.org', exact: true }).click();
    expect(await page.getByLabel('Value').first().inputValue()).toBe('North');
    await checkPage(page, 'audiences-subscriber');
    await page.goBack();
    await checkPage(page, 'audiences-list');
  }, 120_000);

  it('shows a viewer the audiences without any control that changes them', async () => {
    const viewer = await createTestUser(t, a.account.customer_id, 'viewer');
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, viewer.email);
    await page.goto(`${base}/console/audiences`);
    expect(await page.getByRole('button').allTextContents()).toEqual(['Sign out']);
    await page.goto(`${base}/console/audiences/imports`);
    expect(await page.locator('input[type=file]').count()).toBe(0);
    await checkPage(page, 'audiences-viewer');
    await context.close();
  });
});
