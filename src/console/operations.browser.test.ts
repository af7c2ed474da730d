/**
 * The operations pages in headless Chromium with real data: overview with its chart, domains, a key shown once and then
 * never, webhooks, the message log and a message's timeline with content shown on request. Screenshots at phone and
 * desktop width under .test-artifacts/console/, and axe-core on every page.
 */
import { startWebhookReceiver } from '../test/webhook-receiver.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import type { Worker } from '../jobs/worker.ts';
import { sendMessage, startDeliveryWorker, waitUntilFinished } from '../delivery/delivery.test-support.ts';
import { createTestUser, TEST_PASSWORD } from './console.test-support.ts';
import type { User } from '../users/users.service.ts';
import { axeViolations, expectPhoneReadable, openInChromium, screenshot } from './browser.test-support.ts';

let t: TestApp;
let a: TestAccount;
let owner: User;
let browser: Browser;
let base: string;
let messageId: string;

async function shoot(page: Page, name: string): Promise<void> {
  await screenshot(page, name);
  expect(await axeViolations(page), name).toEqual([]);
  if (page.viewportSize()!.width <= 390) await expectPhoneReadable(page, name);
}

describe('operations pages in Chromium', () => {
  beforeAll(async () => {
    t = await createTestApp({ config: { webhookAllowPrivateTargets: true } });
    a = await t.createAccount({ username: 'northclinic', domain: 'mail.northclinic.example' });
    owner = await createTestUser(t, a.account.customer_id, 'owner', { email: 'owner@northclinic.example' });
    const worker: Worker = startDeliveryWorker(t);
    for (const [i, to] of ['ana@example.net', 'ben@example.net', 'ana@example.net'].entries())
      messageId = await sendMessage(t, a, {
        recipients: [to],
        headers: { subject: `Appointment reminder ${i}`, from: `desk@${a.domain}` },
        content: {
          'text/plain': `Your appointment is on Monday at ${9 + i}:00.`,
          'text/html': `<h1>North Clinic</h1><p>Your appointment is on <b>Monday at ${9 + i}:00</b>.</p>`,
        },
      });
    await waitUntilFinished(t, messageId);
    await worker.stop();
    ({ base, browser } = await openInChromium(t));
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('walks the operations pages on a phone and at desktop width', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${base}/console/keys`);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();

    await page.getByLabel('Description').fill('booking system, production');
    await page.getByRole('button', { name: 'Create key' }).click();
    const value = (await page.locator('#new-key').textContent())!.trim();
    expect(value).toMatch(/^sp_/);
    await expect(page.getByRole('button', { name: 'Copy key' }).isVisible()).resolves.toBe(true);
    await shoot(page, 'keys-created');
    await page.goto(`${base}/console/keys`);
    expect(await page.content()).not.toContain(value);
    await shoot(page, 'keys');

    await page.goto(`${base}/console/domains/${a.domain}`);
    await shoot(page, 'domain');

    await page.goto(`${base}/console/webhooks`);
    await shoot(page, 'webhooks');
    const receiver = await startWebhookReceiver(() => ({ status: 200, body: 'received by the clinic' }));
    try {
      await page.getByLabel('Target URL').fill(receiver.url);
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await page.getByRole('link', { name: 'Go to the endpoint' }).click();
      await page.getByRole('button', { name: 'Send test event' }).click();
      await page.getByText(/Test event \d+ delivered: the endpoint answered 200/).waitFor();
      await page.getByText('received by the clinic').waitFor();
      expect(receiver.received.map((h) => h.json().event_name)).toEqual(['webhook_test']);
      await shoot(page, 'webhook-test-event');
    } finally {
      await receiver.close();
    }

    await page.goto(`${base}/console/messages?recipient=ana%40example.net`);
    expect(await page.locator('a[href^="/console/messages/"]').count()).toBe(2);
    await shoot(page, 'messages');
    await page.goto(`${base}/console/messages/${messageId}`);
    expect(await page.content()).not.toContain('Your appointment');
    await page.getByRole('button', { name: 'Show content' }).click();
    await page.getByText('Your appointment is on Monday at 11:00.').waitFor();
    await shoot(page, 'message');

    await page.goto(`${base}/console/captured`);
    await shoot(page, 'captured');
    await page.getByRole('link', { name: 'Open' }).first().click();
    await page.frameLocator('iframe.mail-frame').locator('body').waitFor({ state: 'attached' });
    await shoot(page, 'captured-message');

    await page.goto(`${base}/console/templates/new`);
    await page.frameLocator('#tpl-preview').getByText('your appointment is on Monday 9:00.').waitFor();
    await shoot(page, 'template');
    await page.getByRole('radio', { name: 'HTML (expert)' }).check();
    await page.getByLabel('HTML (Handlebars)').fill('<p>Hello {{first_name}</p>');
    await page.getByText('Line 1, column').waitFor();
    await shoot(page, 'template-error');

    await page.goto(`${base}/console`);
    await page.locator('figure.chart-drawn canvas').first().waitFor();
    await shoot(page, 'overview');

    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${base}/console`);
    await page.locator('figure.chart-drawn canvas').first().waitFor();
    await shoot(page, 'overview-desktop');
    await page.goto(`${base}/console/messages`);
    await shoot(page, 'messages-desktop');
    // The captured message's tracking pixel is refused by the frame's policy: the one error expected.
    expect(
      errors.filter(
        (e) => !/violates the following Content Security Policy directive: "img-src data: cid:"/.test(e),
      ),
    ).toEqual([]);
    expect(errors.some((e) => /\/t\/o\/.*img-src data: cid:/.test(e))).toBe(true);
    await context.close();
    // A walk through eleven pages, each checked by axe-core: slower than one page on a shared machine.
  }, 120_000);
});
