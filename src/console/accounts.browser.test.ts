/**
 * The operator's account switcher in headless Chromium: search, choose an account, see it named in the header band on
 * every page (desktop and 390 px phone screenshots, axe-core on each), go back; a user who is not an operator is
 * refused by the server whatever they post.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { createTestUser, TEST_PASSWORD } from './console.test-support.ts';
import { checkPage, launchChromium } from './browser.test-support.ts';

let t: TestApp;
let home: TestAccount;
let clinic: TestAccount;
let browser: Browser;
let base: string;
let operatorEmail: string;
let ownerEmail: string;

async function signIn(page: Page, email: string): Promise<void> {
  await page.goto(`${base}/console`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(TEST_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
}

describe('operator account switcher in Chromium', () => {
  beforeAll(async () => {
    t = await createTestApp();
    home = await t.createAccount({ username: 'sealpost-ops' });
    clinic = await t.createAccount({ username: 'north-clinic' });
    for (const name of ['south-clinic', 'east-dental', 'west-physio'])
      await t.createAccount({ username: name });
    operatorEmail = (
      await createTestUser(t, home.account.customer_id, 'owner', {
        email: 'operator@sealpost-ops.example',
        operator: true,
      })
    ).email;
    ownerEmail = (
      await createTestUser(t, home.account.customer_id, 'owner', { email: 'owner@sealpost-ops.example' })
    ).email;
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('searches, switches, names the account in the header on every page, and goes back', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await signIn(page, operatorEmail);
    await page.getByRole('link', { name: 'Switch account' }).click();
    await page.getByRole('heading', { name: 'Accounts' }).waitFor();
    await checkPage(page, 'accounts');
    await page.getByLabel('Search accounts').fill('clinic');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('cell', { name: 'south-clinic', exact: true }).waitFor();
    expect(await page.getByRole('cell', { name: 'east-dental', exact: true }).count()).toBe(0);
    await checkPage(page, 'accounts-search');
    await page.getByRole('button', { name: 'View the account north-clinic' }).click();
    await page.getByText('You are viewing the account north-clinic, read only.').waitFor();
    const band = page.getByRole('region', { name: 'Account being viewed' });
    expect(await band.textContent()).toContain('north-clinic');
    await checkPage(page, 'operator-viewing');
    await page.goto(`${base}/console/domains`);
    expect(await band.textContent()).toContain('north-clinic');
    await page.getByText(clinic.domain).first().waitFor();
    expect(await page.getByText(home.domain).count()).toBe(0);
    await checkPage(page, 'operator-viewing-domains');
    await band.getByRole('button', { name: 'Back to my account' }).click();
    await page.getByText('You are back in your account sealpost-ops.').waitFor();
    expect(await page.getByRole('region', { name: 'Account being viewed' }).count()).toBe(0);
    const switches = await t.ctx.database.db
      .selectFrom('audit_log')
      .select(['customer_id', 'target'])
      .where('action', '=', 'operator.switch_account')
      .orderBy('id')
      .execute();
    expect(switches.map((s) => Number(s.customer_id))).toEqual([
      clinic.account.customer_id,
      home.account.customer_id,
    ]);
    await context.close();
  }, 120_000);

  it('refuses a switch posted by a user who is not an operator', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await signIn(page, ownerEmail);
    expect(await page.getByRole('link', { name: 'Switch account' }).count()).toBe(0);
    const csrf = await page.locator('input[name=_csrf]').first().inputValue();
    const status = await page.evaluate(
      async ([token, id]) =>
        (
          await fetch('/console/accounts/switch', {
            method: 'POST',
            body: new URLSearchParams({ _csrf: token, account: id }),
            redirect: 'manual',
          })
        ).status,
      [csrf, String(clinic.account.customer_id)] as const,
    );
    expect(status).toBe(403);
    const accounts = await page.goto(`${base}/console/accounts`);
    expect(accounts!.status()).toBe(403);
    await page.goto(`${base}/console/domains`);
    await page.getByText(home.domain).first().waitFor();
    expect(await page.getByText(clinic.domain).count()).toBe(0);
    await context.close();
  }, 120_000);
});
