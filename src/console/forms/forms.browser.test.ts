/**
 * The forms pages in headless Chromium: build a form with three component types, publish it, submit it on the hosted
 * page, read the response in the console and download its PDF; a viewer cannot change anything. Screenshots of every
 * page at phone and desktop width, and axe-core on each.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { createTestUser, TEST_PASSWORD } from '../console.test-support.ts';
import { axeViolations, openInChromium, screenshot, SHOTS } from '../browser.test-support.ts';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

let t: TestApp;
let a: TestAccount;
let browser: Browser;
let base: string;
let ownerEmail: string;
let viewerEmail: string;
let formUrl = '';

/** Screenshots the page at phone and desktop width and checks it with axe-core. */
async function look(page: Page, name: string): Promise<void> {
  for (const [suffix, size] of [
    ['', DESKTOP],
    ['-phone', PHONE],
  ] as const) {
    await page.setViewportSize(size);
    await screenshot(page, `${name}${suffix}`);
  }
  await page.setViewportSize(DESKTOP);
  expect(await axeViolations(page), name).toEqual([]);
}

async function signIn(page: Page, email: string, path: string): Promise<void> {
  await page.goto(`${base}${path}`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(TEST_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${base}${path}`);
}

describe('forms pages in Chromium', () => {
  beforeAll(async () => {
    t = await createTestApp({ config: { formsSubmitPerMinute: 0 } });
    a = await t.createAccount();
    ownerEmail = (await createTestUser(t, a.account.customer_id, 'owner')).email;
    viewerEmail = (await createTestUser(t, a.account.customer_id, 'viewer')).email;
    ({ base, browser } = await openInChromium(t));
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('builds a form with three component types, publishes it, takes a response and shows it with its PDF', async () => {
    const context = await browser.newContext({ viewport: DESKTOP, acceptDownloads: true });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await signIn(page, ownerEmail, '/console/forms');

    await page.getByLabel('New form title').fill('Patient intake');
    await page.getByRole('button', { name: 'Create form' }).click();
    await page.getByText('Form created').waitFor();
    formUrl = new URL(page.url()).pathname;
    for (const [type, label] of [
      ['Short text', 'Patient name'],
      ['Drop-down list', 'Preferred time'],
      ['Single checkbox', 'I agree to be contacted'],
    ] as const) {
      await page.getByLabel('Label of the new component').fill(label);
      await page.getByLabel('Type of the new component').selectOption({ label: type });
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await page.getByRole('group', { name: new RegExp(type) }).waitFor();
    }
    await expect.poll(() => page.locator('#c0-field_name').inputValue()).toBe('patient_name');
    await page.locator('#c0-required').check();
    await page.locator('#c1-options').fill('Morning\nAfternoon');
    // The preview follows the editor without a save.
    await page.frameLocator('iframe[name=preview]').getByLabel('Preferred time').waitFor();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Form saved').waitFor();
    await page.getByRole('button', { name: 'Move up component 2' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#c0-text').inputValue()).toBe('Preferred time');
    await page.getByRole('button', { name: 'Move down component 1' }).click();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Form saved').waitFor();
    await page.frameLocator('iframe[name=preview]').getByLabel('Patient name').waitFor();
    await look(page, 'forms-builder');

    await page.getByLabel(/Notify of each response/).fill('front-desk@clinic.example, not an address');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('alert').getByText('\u201cnot an address\u201d is not an email address').waitFor();
    await page.getByLabel(/Notify of each response/).fill('front-desk@clinic.example');
    await page.getByLabel('Label of the new component').fill('Your signature');
    await page.getByLabel('Type of the new component').selectOption({ label: 'Signature' });
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByRole('group', { name: /Signature/ }).waitFor();
    expect(await page.getByLabel('Requires a signature').isChecked()).toBe(true);
    await page.getByLabel('The sentence the signer affirms').fill('I confirm these answers are mine.');
    await page.frameLocator('iframe[name=preview]').getByText('I confirm these answers are mine.').waitFor();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Form saved').waitFor();
    await page.locator('#settings').scrollIntoViewIfNeeded();
    for (const [suffix, size] of [
      ['', { width: 1280, height: 800 }],
      ['-phone', PHONE],
    ] as const) {
      await page.setViewportSize(size);
      await page.locator('#settings').screenshot({ path: `${SHOTS}/forms-builder-settings${suffix}.png` });
    }
    await page.setViewportSize(DESKTOP);

    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByText('Form published').waitFor();
    await page.goto(`${base}/console/forms`);
    await look(page, 'forms-list');
    await page.goto(`${base}${formUrl}/share`);
    const hosted = (await page.locator('#hosted-url').textContent())!.trim();
    await look(page, 'forms-share');
    await page.goto(`${base}${formUrl}/look`);
    await page.getByLabel(/Language/).selectOption('es');
    await page.getByRole('button', { name: 'Save the look' }).click();
    await page.getByText('Look saved').waitFor();
    await look(page, 'forms-look');

    const visitor = await browser.newPage({ javaScriptEnabled: false });
    await visitor.goto(hosted.replace(/^https?:\/\/[^/]+/, base));
    await visitor.getByLabel('Patient name').fill('Mary Seacole');
    await visitor.getByLabel('Preferred time').selectOption('Afternoon');
    await visitor.getByLabel('I agree to be contacted').check();
    await visitor.getByLabel('Your signature').fill('Mary Seacole');
    await visitor.getByRole('button', { name: 'Enviar' }).click();
    await visitor.getByText('Gracias').waitFor();
    await visitor.close();

    await page.goto(`${base}${formUrl}/responses`);
    await page.getByRole('cell', { name: 'Mary Seacole' }).waitFor();
    await look(page, 'forms-responses');
    await page.getByRole('link', { name: /^Open/ }).first().click();
    await page.getByText('Afternoon').waitFor();
    await look(page, 'forms-response');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download PDF' }).click(),
    ]);
    const pdf = readFileSync((await download.path())!);
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(download.suggestedFilename()).toMatch(/^submission-.+\.pdf$/);
    expect(errors).toEqual([]);
    await context.close();
  }, 180_000);

  it('shows a viewer the form but the server refuses every change', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await signIn(page, viewerEmail, formUrl);
    expect(await page.getByRole('button', { name: 'Save' }).count()).toBe(0);
    const preview = page.frameLocator('iframe[name=preview]');
    await preview.getByLabel('Patient name').waitFor();
    // Give a script the time to post the read-only editor to the preview, as it did before.
    await page.waitForTimeout(1500);
    expect(await preview.locator('body').innerText()).not.toMatch(/form_json|preview shows once/);
    await preview.getByLabel('Patient name').waitFor();
    expect(
      await page.getByRole('navigation', { name: 'This form' }).getByRole('link').allInnerTexts(),
    ).toEqual(['All forms', 'Build', 'Look', 'Share']);
    await look(page, 'forms-builder-viewer');
    const csrf = await page.locator('input[name=_csrf]').first().inputValue();
    const statuses = await page.evaluate(
      async ([url, token]) => {
        const post = (path: string, body: Record<string, string>) =>
          fetch(path, {
            method: 'POST',
            body: new URLSearchParams({ _csrf: token, ...body }),
            redirect: 'manual',
          }).then((r) => r.status);
        return [
          await post(url, { op: 'save', count: '0', title: 'Emptied' }),
          await post(`${url}/unpublish`, {}),
          await post('/console/forms/new', { title: 'Mine' }),
        ];
      },
      [formUrl, csrf] as const,
    );
    expect(statuses).toEqual([403, 403, 403]);
    const responses = await page.goto(`${base}${formUrl}/responses`);
    expect(responses!.status()).toBe(403);
    const id = formUrl.split('/').pop()!;
    const form = (
      await t.app.inject({ method: 'GET', url: `/v1/forms/api/forms/${id}`, headers: a.auth })
    ).json() as { data?: unknown };
    expect(((form.data ?? form) as { title: string; active: boolean }).title).toBe('Patient intake');
    await context.close();
  }, 120_000);
});
