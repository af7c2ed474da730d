/**
 * Compose helpers, double opt-in and the preference page in Chromium, through a real STARTTLS SMTP sink: the postal
 * address and the personalisation menu on the compose form, a preview as a chosen subscriber, a list switched to double
 * opt-in whose new member shows as unconfirmed until the emailed link is confirmed, and the preference page reached from
 * a campaign email. Every page is screenshotted (desktop and phone) and checked with axe-core.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { checkPage, launchChromium } from '../browser.test-support.ts';
import type { TestAccount, TestApp } from '../../test/harness.ts';
import type { SmtpSink } from '../../test/smtp-sink.ts';
import { startDeliveryWorker } from '../../delivery/delivery.test-support.ts';
import type { Worker } from '../../jobs/worker.ts';
import { waitFor } from '../../test/wait.ts';
import { createList } from '../../marketing/lists/lists.service.ts';
import { createSubscriber } from '../../marketing/subscribers/subscribers.service.ts';
import { sinkApp } from '../../marketing/campaigns/sends.test-support.ts';
import { sendToList } from './campaigns.browser.test-support.ts';
import { createTestUser, TEST_PASSWORD } from '../console.test-support.ts';

let t: TestApp;
let a: TestAccount;
let sink: SmtpSink;
let worker: Worker;
let browser: Browser;
let base: string;

const local = (url: string) => {
  const u = new URL(url.replace(/&amp;/g, '&'));
  return base + u.pathname + u.search;
};

/** No element wider than the phone screen (nothing scrolls sideways). */
async function fitsPhone(page: Page): Promise<void> {
  await page.setViewportSize({ width: 390, height: 844 });
  const width = await page.evaluate(
    () =>
      (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document
        .documentElement.scrollWidth,
  );
  expect(width).toBeLessThanOrEqual(390);
  await page.setViewportSize({ width: 1280, height: 800 });
}

describe('compose helpers, double opt-in and preferences in Chromium', () => {
  beforeAll(async () => {
    ({ sink, t, acct: a } = await sinkApp());
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    worker = startDeliveryWorker(t);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await worker?.stop(2000);
    await t?.close();
    await sink?.close();
  });

  it('composes with the menu and default layout, previews as a subscriber, confirms a member and manages preferences', async () => {
    const customer = a.account.customer_id;
    const editor = await createTestUser(t, customer, 'editor');
    const list = await createList(t.ctx, customer, 'Patients');
    await createSubscriber(
      t.ctx,
      customer,
      {
        email: 'ana@example.org',
        first_name: 'Ana',
        custom_fields: [{ name: 'Clinic', value: 'Riverside' }],
      },
      list.id,
    );
    const page = await browser.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${base}/console/sign-in`);
    await page.getByLabel('Email').fill(editor.email);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();

    // The postal address for the footer.
    await page.getByRole('link', { name: 'Campaigns' }).click();
    await page.getByText('The footer has no postal address yet').waitFor();
    await page.getByLabel('Postal address').fill('Riverside Clinic\n1 River Road, Springfield');
    await page.getByRole('button', { name: 'Save address' }).click();
    await page.getByText('The postal address was saved.').waitFor();

    // Compose: the HTML starts from the default layout; the menu inserts a custom field at the cursor.
    await page.getByLabel('Subject').fill('News for ');
    await page.getByLabel('From address').fill(`news@${a.domain}`);
    await page.getByRole('radio', { name: 'HTML (expert)' }).check();
    const htmlBox = page.getByLabel('HTML', { exact: true });
    expect(await htmlBox.inputValue()).toContain('{{postal_address}}');
    await page.getByLabel('Subject').focus();
    await page.getByRole('button', { name: 'Insert {{Clinic}}' }).click();
    expect(await page.getByLabel('Subject').inputValue()).toBe('News for {{Clinic}}');
    await htmlBox.fill(
      (await htmlBox.inputValue()).replace('Write your message here.', 'Your clinic is {{Clinic}}. '),
    );
    type Box = { value: string; focus(): void; setSelectionRange(a: number, b: number): void };
    await htmlBox.evaluate((el: Box) => {
      const at = el.value.indexOf('Your clinic is {{Clinic}}. ') + 'Your clinic is {{Clinic}}. '.length;
      el.focus();
      el.setSelectionRange(at, at);
    });
    await page.getByRole('button', { name: 'Insert {{first_name}}' }).click();
    expect(await htmlBox.inputValue()).toContain('Your clinic is {{Clinic}}. {{first_name}}');
    await checkPage(page, 'campaigns-compose');
    await fitsPhone(page);
    await page.getByRole('button', { name: 'Save mailing' }).click();
    await page.getByText('The mailing was saved.').waitFor();

    // Preview as a chosen subscriber.
    await page.getByLabel('Subscriber’s email').fill('ana@example.org');
    await page.getByRole('button', { name: 'Preview', exact: true }).click();
    await page.getByText('Subject: News for Riverside').waitFor();
    const frame = page.frameLocator('iframe[title^="The mailing as"]');
    await frame.getByText('Your clinic is Riverside. Ana').waitFor();
    await frame.getByText('Riverside Clinic, 1 River Road, Springfield').waitFor();
    await checkPage(page, 'campaigns-preview');
    await fitsPhone(page);

    // Double opt-in on the list page; a member added afterwards is unconfirmed until the emailed link is confirmed.
    await page.goto(`${base}/console/audiences/lists/${list.id}`);
    await page
      .getByLabel('Double opt-in: new members must confirm by email before they receive campaigns')
      .check();
    await page.getByLabel('Confirmation emails come from').fill(`news@${a.domain}`);
    await page.getByLabel('Offer this list on subscribers’ preference page').check();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('The list settings were saved.').waitFor();
    await page.getByLabel('Email', { exact: true }).fill('bo@example.org');
    await page.getByRole('button', { name: 'Add subscriber' }).click();
    await page.getByText('bo@example.org was added.').waitFor();
    await page.goto(`${base}/console/audiences/lists/${list.id}`);
    await page.getByRole('row', { name: /bo@example\.org.*Unconfirmed/ }).waitFor();
    expect(await page.locator('td .badge').count()).toBe(1);
    await checkPage(page, 'audiences-list-double-opt-in');
    await fitsPhone(page);

    const confirmation = await waitFor(
      () => sink.received.find((m) => m.to.includes('bo@example.org')),
      15_000,
    );
    const link = /https?:\/\/\S+\/confirm\/[A-Za-z0-9._-]+/.exec(
      (await confirmation.parsed()).text ?? '',
    )![0];
    await page.goto(local(link));
    await checkPage(page, 'confirm-subscription');
    await page.getByRole('button', { name: 'Yes, confirm my subscription' }).click();
    await page.getByText('Subscription confirmed').first().waitFor();
    await checkPage(page, 'confirm-subscription-done');
    await page.goto(`${base}/console/audiences/lists/${list.id}`);
    await page.getByRole('row', { name: /bo@example\.org.*Subscribed/ }).waitFor();
    expect(await page.locator('td .badge').count()).toBe(0);

    // Send; the preference page is linked from the email.
    await page.goto(`${base}/console/campaigns`);
    await page.getByRole('link', { name: 'News for {{Clinic}}' }).click();
    await sendToList(page, 'Patients (2)', '2 people');
    await page.getByText('sent', { exact: true }).waitFor({ timeout: 30_000 });
    const mail = await (
      await waitFor(
        () => sink.received.find((m) => m.to.includes('bo@example.org') && m !== confirmation),
        15_000,
      )
    ).parsed();
    const prefs = /href="([^"]+\/p\/[^"]+)"/.exec(String(mail.html))![1]!;
    expect(String(mail.html)).toContain('1 River Road, Springfield');
    await page.goto(local(prefs));
    await page.getByRole('heading', { name: 'Email preferences' }).waitFor();
    await checkPage(page, 'preferences');
    await fitsPhone(page);
    await page.getByLabel('Patients').uncheck();
    await page.getByRole('button', { name: 'Save my choices' }).click();
    await page.getByText('Your choices are saved.').waitFor();
    expect(await page.getByLabel('Patients').isChecked()).toBe(false);
    await checkPage(page, 'preferences-saved');
  }, 180_000);
});
