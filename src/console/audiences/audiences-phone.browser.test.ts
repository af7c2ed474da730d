/**
 * Audiences on a phone in Chromium: the lists and a list's subscribers stack into labelled rows and the page does not
 * scroll sideways at 390 px; the filter builder works as a plain form (add a group, show, save as a dynamic list).
 */
import { describe, expect, it } from 'vitest';
import {
  checkPage,
  expectNoSidewaysScroll,
  signedInPage,
  consoleBrowserTestBed,
} from '../browser.test-support.ts';
import { createList } from '../../marketing/lists/lists.service.ts';
import { createSubscriber } from '../../marketing/subscribers/subscribers.service.ts';
import { createTestUser } from '../console.test-support.ts';

describe('audiences on a phone', () => {
  const rig = consoleBrowserTestBed();

  it('stacks the tables, filters with the builder and saves a dynamic list', async () => {
    const { t, a, browser, base } = rig;
    const cid = a.account.customer_id;
    const list = await createList(t.ctx, cid, 'Patients of the north clinic with a long name');
    for (const [email, first] of [
      ['ana.longaddress.for.testing@north-clinic.example', 'Ana'],
      ['bo@south.example', 'Bo'],
    ])
      await createSubscriber(t.ctx, cid, { email: email!, first_name: first! }, list.id);
    const editor = await createTestUser(t, cid, 'editor');
    const page = await signedInPage(browser, base, editor.email);
    await page.getByRole('link', { name: 'Audiences' }).click();
    await checkPage(page, 'audiences-lists-stacked');
    await expectNoSidewaysScroll(page, 'the lists page');

    await page.getByRole('link', { name: 'Patients of the north clinic with a long name' }).click();
    await page.getByLabel('Field').selectOption('email');
    await page.getByLabel('Condition').selectOption('contains');
    await page.getByLabel('Values (comma-separated)').fill('north');
    await page.getByRole('button', { name: 'Add group' }).click();
    expect(await page.locator('select[name="f_field"]').count()).toBe(2);
    await page.locator('#f-field-1').selectOption('first_name');
    await page.locator('#f-terms-1').fill('Bo');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByRole('link', { name: 'bo@south.example' }).waitFor();
    await page.getByRole('link', { name: 'ana.longaddress.for.testing@north-clinic.example' }).waitFor();
    await checkPage(page, 'audiences-list-filtered');
    await expectNoSidewaysScroll(page, 'the list page');

    await page.getByLabel('Save these filters as a dynamic list named').fill('North or Bo');
    await page.getByRole('button', { name: 'Save as dynamic list' }).click();
    await page.getByText('The dynamic list "North or Bo" was saved (2 subscribers match now).').waitFor();
  }, 120_000);
});
