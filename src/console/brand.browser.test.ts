/**
 * The brand, end to end in Chromium: an owner uploads a logo to the image library and sets the brand in the console;
 * every public page a patient sees (hosted form and its thank-you page, unsubscribe and its result, preferences,
 * opt-in confirmation and its result, secure message, a campaign email's view-in-browser page) then shows the logo, the name and the postal address, passes
 * axe, and is screenshot at desktop and phone width.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import sharp from 'sharp';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { createForm } from '../forms/forms.test-support.ts';
import {
  makeList,
  makeSubscriber,
  marketingClient,
  keyOf,
  seedMailLinks,
} from '../marketing/marketing.test-support.ts';
import { message, postJson, recipientsOf } from '../email/email.test-support.ts';
import { secureTokenHash } from '../web/secure-message.service.ts';
import { signPayload, tokenUrls } from '../mail/tokens.ts';
import { createHash } from 'node:crypto';
import { createTestUser, TEST_PASSWORD } from './console.test-support.ts';
import { checkPage, launchChromium } from './browser.test-support.ts';

let t: TestApp;
let a: TestAccount;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let base: string;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Asserts the brand is shown: the logo loaded, the name above and the postal address below. */
async function expectBrand(p: Page): Promise<void> {
  await expect.poll(() => p.locator('.pb-head .pb-name').textContent()).toBe('Riverside Clinic');
  const logoWidth = await p
    .locator('.pb-head img.pb-logo')
    .evaluate((img) => (img as { naturalWidth: number }).naturalWidth);
  expect(logoWidth).toBeGreaterThan(0);
  expect(await p.locator('.pb-foot').textContent()).toContain('1 River Road');
}

/** A secure link to a transactional message of the account, as delivery would make it. */
async function secureLink(): Promise<string> {
  const res = await postJson(t, '/v1/email/messages', a.auth, {
    data: {
      message: message(`patient@example.org`, {
        headers: { subject: 'Your test results', from: `Riverside Desk <desk@${a.domain}>` },
        content: {
          'text/plain': 'Your results are fine.',
          'text/html': '<p>Your results are <b>fine</b>.</p>',
        },
      }),
    },
  });
  expect(res.statusCode, res.body).toBe(200);
  const [recipient] = await recipientsOf(t, res.json().sourceTrackingId as string);
  const token = randomBytes(32).toString('base64url');
  await t.ctx.database.db
    .updateTable('message_recipients')
    .set({ secure_token_hash: secureTokenHash(token), secure_expires_at: Date.now() + 3_600_000 })
    .where('id', '=', recipient!.id)
    .execute();
  return `/s/${token}`;
}

/** A double opt-in confirmation link for a new member of a list, as the confirmation email carries it. */
async function confirmLink(): Promise<string> {
  const call = marketingClient(t, a);
  const list = await makeList(call, 'Clinic news');
  const subscriber = await makeSubscriber(call, 'new@patients.example', {}, list);
  const nonce = randomBytes(16).toString('hex');
  await t.ctx.database.db
    .updateTable('subscription_list_members')
    .set({
      confirm_hash: createHash('sha256').update(nonce).digest('hex'),
      confirm_expires_at: Date.now() + 3_600_000,
      confirmed_at: null,
    })
    .where('list_id', '=', await keyOf(t, 'subscription_lists', list))
    .where('subscriber_id', '=', await keyOf(t, 'subscribers', subscriber))
    .execute();
  return `/confirm/${signPayload(t.ctx.keys.tracking, `oc.${nonce}`)}`;
}

describe('the brand on every public page', () => {
  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp({ config: { publicUrl: base, formsSubmitPerMinute: 0 } });
    a = await t.createAccount();
    const owner = await createTestUser(t, a.account.customer_id, 'owner', {
      email: 'owner@riverside.example',
    });
    await t.app.listen({ host: '127.0.0.1', port });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${base}/console/settings/images`);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/console/settings/images`);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('uploads a logo and sets the brand in the console', async () => {
    const logo = await sharp({ create: { width: 480, height: 120, channels: 3, background: '#2a7f62' } })
      .composite([
        {
          input: Buffer.from(
            '<svg width="480" height="120"><text x="20" y="80" font-size="60" fill="#ffffff" font-family="sans-serif">Riverside</text></svg>',
          ),
        },
      ])
      .png()
      .toBuffer();
    await page
      .getByLabel('Image file')
      .setInputFiles({ name: 'riverside-logo.png', mimeType: 'image/png', buffer: logo });
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByText('Uploaded riverside-logo.png.').waitFor();
    await checkPage(page, 'settings-images');

    await page.goto(`${base}/console/settings/brand`);
    await page.getByLabel('Display name').fill('Riverside Clinic');
    await page.getByLabel('Brand colour').fill('#2a7f62');
    await page.getByLabel('riverside-logo.png').check();
    await page.getByLabel('Postal address').fill('Riverside Clinic\n1 River Road, Springfield');
    await page.getByRole('button', { name: 'Save brand' }).click();
    await page.getByText('Brand saved.').waitFor();
    await checkPage(page, 'settings-brand');
    const listed = await page.request.get(`${base}/console/settings/images.json`);
    expect((await listed.json()).images[0]).toMatchObject({ name: 'riverside-logo.png', width: 480 });
  }, 60_000);

  it('shows the brand on the hosted form and its thank-you page', async () => {
    const formId = await createForm(t.app, a.auth);
    await page.goto(`${base}/f/${formId}`);
    await expectBrand(page);
    await checkPage(page, 'public-form');
    await page.goto(`${base}/f/${formId}/thanks`);
    await expectBrand(page);
    await checkPage(page, 'public-form-thanks');
  }, 60_000);

  it('shows the brand on the unsubscribe and preference pages', async () => {
    const links = await seedMailLinks(t, a, marketingClient(t, a), 'patient@patients.example');
    await page.goto(`${base}${links.preferences}`);
    await expectBrand(page);
    await checkPage(page, 'public-preferences');
    await page.goto(`${base}${links.unsubscribe}`);
    await expectBrand(page);
    await checkPage(page, 'public-unsubscribe');
    await page.getByRole('button', { name: /Unsubscribe from the list/ }).click();
    await page.getByRole('heading', { name: 'Unsubscribed' }).waitFor();
    await expectBrand(page);
    await checkPage(page, 'public-unsubscribed');
  }, 60_000);

  it('shows the brand on the opt-in confirmation pages', async () => {
    await page.goto(`${base}${await confirmLink()}`);
    await expectBrand(page);
    await checkPage(page, 'public-confirm');
    await page.getByRole('button', { name: 'Yes, confirm my subscription' }).click();
    await page.getByRole('heading', { name: 'Subscription confirmed' }).waitFor();
    await expectBrand(page);
    await checkPage(page, 'public-confirmed');
  }, 60_000);

  it('shows a campaign email in the browser, under the brand, from its view-in-browser link', async () => {
    await seedMailLinks(t, a, marketingClient(t, a), 'reader@patients.example');
    const db = t.ctx.database.db;
    const delivery = await db
      .selectFrom('marketing_deliveries')
      .select(['id', 'send_id'])
      .where('email', '=', 'reader@patients.example')
      .executeTakeFirstOrThrow();
    // The seeded send holds no content: give it the content a send started through the API freezes.
    const send = await db
      .selectFrom('campaign_mailing_sends')
      .select('content')
      .where('id', '=', delivery.send_id!)
      .executeTakeFirstOrThrow();
    const content = {
      ...(JSON.parse(send.content) as object),
      subject: 'Spring news from Riverside',
      customerName: 'Riverside Clinic',
      fromEmail: `news@${a.domain}`,
      fromName: 'Riverside Clinic',
      html: '<h2 style="color:#2a7f62">Spring news</h2><p>Hello {{first_name}}, our new opening hours start in May.</p>',
      text: 'Spring news\n\nOur new opening hours start in May.',
    };
    await db
      .updateTable('campaign_mailing_sends')
      .set({ content: JSON.stringify(content) })
      .where('id', '=', delivery.send_id!)
      .execute();
    const url = tokenUrls.marketing.view(t.ctx.publicUrl, t.ctx.keys.tracking, Number(delivery.id));
    await page.goto(url);
    await page.getByRole('heading', { name: 'Spring news from Riverside' }).waitFor();
    await expectBrand(page);
    await checkPage(page, 'public-view-in-browser');
    const forged = await page.request.get(
      url.replace(/\/v\/(.)/, (_m, c: string) => `/v/${c === 'a' ? 'b' : 'a'}`),
    );
    expect(forged.status()).toBe(404);
  }, 60_000);

  it('shows the brand on the secure message page', async () => {
    await page.goto(`${base}${await secureLink()}`);
    await page.getByRole('heading', { name: 'Your test results' }).waitFor();
    await expectBrand(page);
    await checkPage(page, 'public-secure-message');
  }, 60_000);
});
