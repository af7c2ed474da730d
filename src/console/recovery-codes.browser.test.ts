/**
 * Recovery codes and the audit trail in Chromium: turning two-factor on shows the codes once, a code signs in when the
 * phone is not at hand, and the audit trail then names the user with a link. Screenshots at desktop and phone width,
 * checked with axe-core.
 */
import { describe, expect, it } from 'vitest';
import { Secret, TOTP } from 'otpauth';
import { checkPage, consoleBrowserTestBed, signedInPage } from './browser.test-support.ts';
import { createTestUser, TEST_PASSWORD } from './console.test-support.ts';

const rig = consoleBrowserTestBed();

describe('recovery codes in Chromium', () => {
  it('shows the codes once at set-up, signs in with one, and the audit trail links the user', async () => {
    const owner = await createTestUser(rig.t, rig.a.account.customer_id, 'owner');
    const page = await signedInPage(rig.browser, rig.base, owner.email);
    page.setDefaultTimeout(60_000);
    await page.waitForURL(/\/console$/);
    await page.goto(`${rig.base}/console/settings/two-factor`);
    await page.getByRole('button', { name: 'Set up two-factor' }).click();
    const key = (await page.locator('#totp-key').textContent())!.trim();
    const code = new TOTP({
      secret: Secret.fromBase32(key),
      label: owner.email,
      issuer: 'Sealpost',
    }).generate();
    await page.getByLabel('Code from the app').fill(code);
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
    const codes = await page.locator('#recovery-codes code').allTextContents();
    expect(codes).toHaveLength(10);
    await checkPage(page, 'recovery-codes');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You are signed out.').waitFor();
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Lost your phone? Use a recovery code' }).click();
    await page.getByLabel('Recovery code').fill(codes[0]!);
    await checkPage(page, 'sign-in-recovery-code');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByText('You signed in with a recovery code').waitFor();

    await page.goto(`${rig.base}/console/settings/two-factor`);
    await page.getByText('9 of 10').waitFor();
    await page.goto(`${rig.base}/console/settings/audit`);
    await page.getByRole('cell', { name: 'user.recovery_code_use' }).first().waitFor();
    const link = page.getByRole('link', { name: owner.email, exact: true }).first();
    expect(await link.getAttribute('href')).toBe(`/console/settings/users#user-${owner.id}`);
    expect(await page.locator('td time').first().getAttribute('title')).toMatch(/ UTC$/);
    await checkPage(page, 'audit-trail');
    await page.close();
  }, 300_000);
});
