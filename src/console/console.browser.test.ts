/** The console in headless Chromium: sign-in and the way back, a wrong password, every page on a phone, and axe-core. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { createTestUser, TEST_PASSWORD } from './console.test-support.ts';
import { axeViolations, expectPhoneReadable, openInChromium, screenshot } from './browser.test-support.ts';
import type { User } from '../users/users.service.ts';
import { Secret, TOTP } from 'otpauth';
import { issueUserLink } from '../users/users.service.ts';

let t: TestApp;
let a: TestAccount;
let owner: User;
let browser: Browser;
let base: string;

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe('console in Chromium', () => {
  beforeAll(async () => {
    t = await createTestApp({ config: { consoleSignInMaxFailures: 3 } });
    a = await t.createAccount({ username: 'northclinic' });
    owner = await createTestUser(t, a.account.customer_id, 'owner', { email: 'owner@northclinic.example' });
    ({ base, browser } = await openInChromium(t));
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('signs in after a wrong password and returns to the page asked for', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const errors: string[] = [];
    page.on(
      'console',
      (m) => m.type() === 'error' && !/status of 40[13]/.test(m.text()) && errors.push(m.text()),
    );
    await page.goto(`${base}/console/settings`);
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
    await screenshot(page, 'sign-in');
    expect(await axeViolations(page)).toEqual([]);

    await signIn(page, owner.email, 'not the password');
    await page.getByText('the email address or password is not right').waitFor();
    await screenshot(page, 'sign-in-wrong-password');

    await signIn(page, owner.email, TEST_PASSWORD);
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    expect(page.url()).toBe(`${base}/console/settings`);
    await screenshot(page, 'settings');
    expect(await axeViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);

  it('shows every page on a phone with no serious accessibility problem, and two-factor works end to end', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const shot = async (name: string, axe = true) => {
      await screenshot(page, name);
      if (axe) expect(await axeViolations(page), name).toEqual([]);
    };
    await page.goto(`${base}/console/forgot-password`);
    await shot('forgot-password');
    const invited = await createTestUser(t, a.account.customer_id, 'editor', {
      email: 'new.nurse@northclinic.example',
    });
    await page.goto(
      `${base}/console/set-password?token=${await issueUserLink(t.ctx.database.db, invited, 'invite')}`,
    );
    await shot('set-password');

    await page.goto(`${base}/console`);
    await signIn(page, owner.email, TEST_PASSWORD);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await shot('overview');
    await expectPhoneReadable(page, 'overview');
    for (const path of [
      'domains',
      'keys',
      'webhooks',
      'messages',
      'captured',
      'templates',
      'forms',
      'audiences',
      'campaigns',
    ]) {
      await page.goto(`${base}/console/${path}`);
      await shot(`nav-${path}`, path === 'domains');
    }
    await page.getByText('Menu').click();
    await screenshot(page, 'menu-open');

    await page.goto(`${base}/console/settings/users`);
    await page.getByLabel('Email').fill('reception@northclinic.example');
    await page.getByLabel('Role', { exact: true }).selectOption('viewer');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText('reception@northclinic.example').first().waitFor();
    await shot('users');

    await page.goto(`${base}/console/settings/suppressions`);
    await page.getByLabel('Email address').fill('gone@patients.example');
    await page.getByRole('button', { name: 'Add to the list' }).click();
    await page.getByText('Added gone@patients.example to the suppression list.').waitFor();
    await shot('suppressions');
    await expectPhoneReadable(page, 'suppressions');

    await page.goto(`${base}/console/settings/two-factor`);
    await page.getByRole('button', { name: 'Set up two-factor' }).click();
    const key = (await page.locator('#totp-key').textContent())!.trim();
    await shot('two-factor-setup');
    // A code works once: sign-in after the set-up takes the next step's code (inside the one-step drift window).
    const code = (offset = 0) =>
      new TOTP({ secret: Secret.fromBase32(key), label: owner.email, issuer: 'Sealpost' }).generate({
        timestamp: Date.now() + offset,
      });
    await page.getByLabel('Code from the app').fill(code());
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByText('Two-factor authentication is on.').first().waitFor();
    await shot('two-factor-on');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You are signed out.').waitFor();
    await page.goto(`${base}/console/settings/audit`);
    await signIn(page, owner.email, TEST_PASSWORD);
    await page.getByLabel('Authentication code').waitFor();
    await shot('sign-in-two-factor');
    await page.getByLabel('Authentication code').fill(code(30_000));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('heading', { name: 'Audit trail' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/settings/audit');
    await shot('audit');
    await page.setViewportSize({ width: 1280, height: 800 });
    await screenshot(page, 'audit-desktop');
    await page.goto(`${base}/console/no-such-page`);
    await shot('not-found');
    await context.close();
    // Every page of the console with axe-core on each: slower than one page on a shared machine.
  }, 120_000);

  it('refuses a forged form token and a viewer change on the server, and locks out after repeated failures', async () => {
    const viewer = await createTestUser(t, a.account.customer_id, 'viewer', {
      email: 'viewer@northclinic.example',
    });
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${base}/console`);
    await signIn(page, viewer.email, TEST_PASSWORD);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    expect(await page.getByRole('link', { name: 'Users and roles' }).count()).toBe(0);

    const refused = await context.request.post(`${base}/console/settings/users/${owner.id}/disable`, {
      form: { _csrf: (await page.locator('input[name=_csrf]').first().inputValue())! },
    });
    expect(refused.status()).toBe(403);

    await page
      .locator('input[name=_csrf]')
      .first()
      .evaluate((el) => ((el as unknown as { value: string }).value = 'forged'));
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('This form has expired').waitFor();
    await screenshot(page, 'csrf-refused');
    await page.goto(`${base}/console`);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await context.close();

    const lockPage = await browser.newPage({ viewport: { width: 390, height: 844 } });
    lockPage.setDefaultTimeout(15_000);
    await lockPage.goto(`${base}/console/sign-in`);
    for (let i = 0; i < 3; i++) {
      await signIn(lockPage, viewer.email, `wrong ${i}`);
      await lockPage.getByText('The email address or password is not right.').waitFor();
    }
    await signIn(lockPage, viewer.email, TEST_PASSWORD);
    await lockPage.getByText('Too many failed sign-ins').waitFor();
    expect(new URL(lockPage.url()).pathname).toBe('/console/sign-in');
    await screenshot(lockPage, 'sign-in-locked');
    await lockPage.close();
  }, 120_000);

  it('asks to sign in again after the idle timeout and returns to the page', async () => {
    const idle = await createTestApp({ config: { consoleIdleTimeoutSeconds: 1 } });
    try {
      const acct = await idle.createAccount();
      const u = await createTestUser(idle, acct.account.customer_id, 'viewer');
      const idleBase = await idle.app.listen({ host: '127.0.0.1', port: 0 });
      const page = await browser.newPage();
      page.setDefaultTimeout(15_000);
      await page.goto(`${idleBase}/console/settings`);
      await signIn(page, u.email, TEST_PASSWORD);
      await page.getByRole('heading', { name: 'Settings' }).waitFor();
      await page.waitForTimeout(1500);
      await page.goto(`${idleBase}/console/settings`);
      expect(new URL(page.url()).pathname).toBe('/console/sign-in');
      await signIn(page, u.email, TEST_PASSWORD);
      await page.getByRole('heading', { name: 'Settings' }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/console/settings');
      await page.close();
    } finally {
      await idle.close();
    }
  }, 120_000);

  it('can be used with the keyboard alone: sign in, skip to the content, open the menu and reach a page', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    /** What has the focus: its label, text or name, and whether the focus ring shows. */
    const focused = () =>
      page.evaluate(() => {
        type El = {
          id: string;
          textContent: string | null;
          getAttribute(n: string): string | null;
          labels?: { textContent: string | null }[];
        };
        const g = globalThis as unknown as {
          document: { activeElement: El | null };
          getComputedStyle(e: El): { outlineStyle: string; outlineWidth: string };
        };
        const el = g.document.activeElement!;
        const style = g.getComputedStyle(el);
        const name = el.labels?.[0]?.textContent ?? el.getAttribute('aria-label') ?? el.textContent ?? '';
        return { name: name.trim(), ring: style.outlineStyle !== 'none' && style.outlineWidth !== '0px' };
      });
    const tabTo = async (name: string | RegExp) => {
      for (let i = 0; i < 40; i++) {
        await page.keyboard.press('Tab');
        const f = await focused();
        if (typeof name === 'string' ? f.name === name : name.test(f.name)) {
          expect(f.ring, `focus ring on ${f.name}`).toBe(true);
          return;
        }
      }
      throw new Error(`the keyboard never reached ${String(name)}`);
    };
    const editor = await createTestUser(t, a.account.customer_id, 'editor');
    await page.goto(`${base}/console/messages`);
    await tabTo('Email');
    await page.keyboard.type(editor.email);
    await tabTo('Password');
    await page.keyboard.type(TEST_PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Messages' }).waitFor();

    await tabTo('Skip to content');
    await page.keyboard.press('Enter');
    await tabTo('Recipient');
    await page.goto(`${base}/console/messages`);
    await tabTo(/^Menu/);
    await page.keyboard.press('Enter');
    await tabTo('Webhooks');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    await context.close();
  }, 120_000);
});
