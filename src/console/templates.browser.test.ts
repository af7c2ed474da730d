/**
 * The templates page in Chromium: a dynamic template written with the block editor (the preview renders the document
 * with the sample values, its inline styles kept), saved with the sample values kept, reopened in the block mode, switched to raw HTML as the expert mode, and sent through
 * the API with a text part made from its HTML. Screenshots: desktop and phone; axe-clean.
 */
import { describe, expect, it } from 'vitest';
import { message, postJson, storedMessage } from '../email/email.test-support.ts';
import { createTestUser } from './console.test-support.ts';
import { checkPage, consoleBrowserTestBed, signedInPage } from './browser.test-support.ts';

describe('the templates page in Chromium', () => {
  const rig = consoleBrowserTestBed();

  it('writes a template in blocks, keeps raw HTML as the expert mode, and sends it with a text part', async () => {
    const { t, a } = rig;
    const editor = await createTestUser(t, a.account.customer_id, 'editor');
    const page = await signedInPage(rig.browser, rig.base, editor.email);
    await page.getByRole('link', { name: 'Templates' }).click();
    await page.getByRole('link', { name: 'New template' }).click();

    await page.getByLabel('Name').fill('appointment');
    expect(await page.getByRole('radio', { name: 'Blocks' }).isChecked()).toBe(true);
    expect(await page.getByLabel('Block to add').locator('option', { hasText: 'Footer' }).count()).toBe(0);
    await page.getByLabel('Block to add').selectOption({ label: 'Button' });
    await page.getByRole('button', { name: 'Add block' }).click();
    await page.getByLabel('Button 3: label').fill('Change the time');
    await page.getByLabel('Button 3: link').fill('https://clinic.example/change');
    const preview = page.frameLocator('#tpl-preview');
    await preview.getByText('Hello Ana').waitFor();
    await preview.getByText('Change the time').waitFor();
    await preview.getByText('Your appointment is on Monday 9:00.').waitFor();
    // The frame keeps the email's inline styles: the button's link is not drawn as a plain underlined link.
    const link = preview.getByRole('link', { name: 'Change the time' });
    expect(
      await link.evaluate((a) => a.ownerDocument.defaultView!.getComputedStyle(a).textDecorationLine),
    ).toBe('none');
    await page
      .getByLabel('Sample values (JSON), for the preview only')
      .fill('{"first_name":"Bea","appointment":"Tuesday 8:00"}');
    await preview.getByText('Hello Bea').waitFor();
    // A frame below the fold is painted only once it was in view.
    await page.locator('#tpl-preview').scrollIntoViewIfNeeded();
    await checkPage(page, 'templates-block-editor');

    await page.getByRole('button', { name: 'Save template' }).click();
    await page.getByText('The template is saved.').waitFor();
    // The sample values stay after the save, and the preview shows them.
    expect(await page.getByLabel('Sample values (JSON), for the preview only').inputValue()).toContain('Bea');
    await preview.getByText('Hello Bea').waitFor();
    expect(await page.getByRole('radio', { name: 'Blocks' }).isChecked()).toBe(true);
    await page.getByLabel('Button 3: label').waitFor();

    // The expert mode shows the HTML the blocks were rendered into.
    await page.getByRole('radio', { name: 'HTML (expert)' }).check();
    expect(await page.getByLabel('HTML (Handlebars)').inputValue()).toContain('Change the time');
    await checkPage(page, 'templates-html-mode');

    const res = await postJson(t, '/v1/email/templated_messages', a.auth, {
      data: {
        template_name: 'appointment',
        template_values: JSON.stringify({ first_name: 'Ana', appointment: 'Friday 10:00' }),
        message: { ...message(`desk@${a.domain}`), content: undefined },
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const { content } = await storedMessage(t, res.json().sourceTrackingId);
    expect(content.html).toContain('Your appointment is on Friday 10:00.');
    expect(content.text).toContain('Hello Ana');
    expect(content.text).toContain('Your appointment is on Friday 10:00.');
    expect(content.text).not.toContain('<');
  }, 120_000);
});
