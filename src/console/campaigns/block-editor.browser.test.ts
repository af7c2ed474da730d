/**
 * The block editor in Chromium, through a real STARTTLS SMTP sink: a newsletter written with seven kinds of block
 * (rich text with bold and a personalisation field from the menu, an image uploaded to the library from the picker,
 * button, divider, two columns with a button inside, footer), moved and undone, previewed as a subscriber at desktop and phone widths with the content checks, saved, sent as a test,
 * and the received copy's HTML compared with the preview's byte for byte. Screenshots: the picker, desktop and phone; axe-clean.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { checkPage, launchChromium } from '../browser.test-support.ts';
import type { TestAccount, TestApp } from '../../test/harness.ts';
import type { SmtpSink } from '../../test/smtp-sink.ts';
import { startDeliveryWorker } from '../../delivery/delivery.test-support.ts';
import type { Worker } from '../../jobs/worker.ts';
import { waitFor } from '../../test/wait.ts';
import { createList } from '../../marketing/lists/lists.service.ts';
import { createSubscriber } from '../../marketing/subscribers/subscribers.service.ts';
import { sinkApp } from '../../marketing/campaigns/sends.test-support.ts';
import { createTestUser, TEST_PASSWORD } from '../console.test-support.ts';

let t: TestApp;
let a: TestAccount;
let sink: SmtpSink;
let worker: Worker;
let browser: Browser;
let base: string;

/** Adds a block of this kind at the end. */
async function addBlock(page: Page, kind: string): Promise<void> {
  await page.getByLabel('Block to add').selectOption({ label: kind });
  await page.getByRole('button', { name: 'Add block' }).click();
}

/** The HTML the editor's preview shows for its current document and subscriber (the frame's own request, repeated). */
async function previewHtml(page: Page): Promise<string> {
  const form = {
    _csrf: await page.locator('[data-preview-csrf]').inputValue(),
    content_blocks: await page.locator('textarea[name=content_blocks]').inputValue(),
    subscriber: await page.getByLabel('Preview as subscriber (email)').inputValue(),
  };
  const res = await page.request.post(`${base}/console/campaigns/blocks/preview.html`, { form });
  expect(res.headers()['content-security-policy']).toContain("default-src 'none'");
  return res.text();
}

describe('the block editor in Chromium', () => {
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

  it('writes a newsletter in blocks, previews it as a subscriber, and sends a test that matches the preview', async () => {
    const customer = a.account.customer_id;
    const editor = await createTestUser(t, customer, 'editor');
    const list = await createList(t.ctx, customer, 'Patients');
    await createSubscriber(t.ctx, customer, { email: 'ana@example.org', first_name: 'Ana' }, list.id);
    const page = await browser.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${base}/console/sign-in`);
    await page.getByLabel('Email').fill(editor.email);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Campaigns' }).click();

    await page.getByLabel('Subject').fill('Spring news');
    await page.getByLabel('From address').fill(`news@${a.domain}`);
    expect(await page.getByRole('radio', { name: 'Blocks' }).isChecked()).toBe(true);

    // Rich text: bold, and the subscriber's first name from the personalisation menu.
    const text = page.getByRole('textbox', { name: 'Paragraph 2: text' });
    await text.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('Dear ');
    await page.getByRole('button', { name: 'Insert {{first_name}}' }).click();
    await page.keyboard.type(', we open ');
    await page.getByRole('button', { name: 'Bold (Paragraph 2: text)' }).click();
    await page.keyboard.type('earlier');
    await page.getByRole('button', { name: 'Bold (Paragraph 2: text)' }).click();
    await page.keyboard.type(' from Monday.');

    // The image comes from the library: uploaded from the picker, which fills the URL and asks for the alt text.
    await addBlock(page, 'Image');
    await page.getByRole('button', { name: 'Image 4: choose from the image library' }).click();
    await page.getByText('No images in the library yet: upload one.').waitFor();
    await page.getByLabel('Upload a new image for Image 4').setInputFiles({
      name: 'entrance.png',
      mimeType: 'image/png',
      buffer: await sharp({ create: { width: 300, height: 200, channels: 3, background: '#2a7f62' } })
        .png()
        .toBuffer(),
    });
    await expect
      .poll(() => page.getByLabel('Image 4: image URL').inputValue())
      .toMatch(/\/img\/[\w-]+\.png$/);
    const src = await page.getByLabel('Image 4: image URL').inputValue();
    expect(await page.locator(':focus').getAttribute('data-alt')).toBe('Image 4');
    // The uploaded image is in the library now, and choosing it from there gives the same URL.
    await page.getByRole('button', { name: 'Image 4: choose from the image library' }).click();
    await page.getByRole('button', { name: 'Use entrance.png' }).waitFor();
    await checkPage(page, 'block-editor-picker');
    await page.getByRole('button', { name: 'Use entrance.png' }).click();
    expect(await page.getByLabel('Image 4: image URL').inputValue()).toBe(src);
    await addBlock(page, 'Button');
    await page.getByLabel('Button 5: label').fill('Book a visit');
    await page.getByLabel('Button 5: link').fill('https://clinic.example/book');
    await addBlock(page, 'Divider');
    await addBlock(page, 'Two columns');
    // The footer goes last: move it down past the new blocks, then undo and redo the last move.
    for (let n = 3; n <= 6; n++) await page.getByRole('button', { name: `Move Footer ${n} down` }).click();
    await page.getByRole('button', { name: 'Undo' }).click();
    await page.getByRole('button', { name: 'Move Footer 6 down' }).waitFor();
    await page.getByRole('button', { name: 'Redo' }).click();
    await page.getByRole('button', { name: 'Delete Footer 7' }).waitFor();
    // A column holds any block but columns and the footer: a button goes below the right column's text.
    await page.getByLabel('Block to add to Two columns 6, right column').selectOption({ label: 'Button' });
    await page.getByRole('button', { name: 'Add block to Two columns 6, right column' }).click();
    await page.getByLabel('Two columns 6, right: Button 2: label').fill('Call us');
    await page.getByLabel('Two columns 6, right: Button 2: link').fill('https://clinic.example/call');

    // Preview as Ana; the checks flag the image without alt text.
    await page.getByLabel('Preview as subscriber (email)').fill('ana@example.org');
    await page.getByLabel('Preview as subscriber (email)').press('Tab');
    // The frame renders the whole document on the server: on a loaded host that may take more than the default wait.
    await page
      .frameLocator('iframe[name=block-preview]')
      .getByText('Dear Ana, we open')
      .waitFor({ timeout: 40_000 });
    expect(await previewHtml(page)).toContain('Dear Ana, we open <strong>earlier</strong> from Monday.');
    await page.getByText('1 image has no alt text.').waitFor();
    await page.getByLabel('Image 3: alt text').fill('The clinic’s new entrance');
    await page.getByText('No problems found.').waitFor();
    await page.frameLocator('iframe[name=block-preview]').getByAltText('The clinic’s new entrance').waitFor();
    await page.frameLocator('iframe[name=block-preview]').getByText('Book a visit').waitFor();
    // A frame below the fold is painted only once it was in view.
    await page.locator('iframe[name=block-preview]').scrollIntoViewIfNeeded();
    await checkPage(page, 'block-editor-desktop');
    await page.getByRole('button', { name: 'Phone' }).click();
    await checkPage(page, 'block-editor-phone-preview');

    await page.getByRole('button', { name: 'Save mailing' }).click();
    await page.getByText('The mailing was saved.').waitFor();

    // The saved mailing opens in the editor; its preview as Ana is what a test email to Ana carries.
    await page.getByLabel('Preview as subscriber (email)').fill('ana@example.org');
    await page.getByRole('button', { name: 'Refresh preview' }).click();
    await page
      .frameLocator('iframe[name=block-preview]')
      .getByText('Dear Ana, we open')
      .waitFor({ timeout: 40_000 });
    const preview = await previewHtml(page);
    await page.getByLabel('Send a test to').fill('ana@example.org');
    await page.getByRole('button', { name: 'Send test' }).click();
    const mail = await (
      await waitFor(() => sink.received.find((m) => m.to.includes('ana@example.org')), 15_000)
    ).parsed();
    expect(String(mail.subject)).toBe('[Test] Spring news');
    expect(mail.html).toBe(preview);
    expect(mail.text).toContain('Book a visit: https://clinic.example/book');
    expect(mail.text).toContain('Call us: https://clinic.example/call');
    expect(mail.html).toContain(`src="${src}"`);
    expect(mail.html).toContain('alt="The clinic’s new entrance"');
  }, 180_000);
});
