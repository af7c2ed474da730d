/**
 * Post/redirect/get and unsaved changes in Chromium: reloading or going back after creating a key makes no second key
 * and never shows the value again; leaving the template editor, the form builder or the mailing editor with unsaved
 * changes asks first, and leaving after saving does not. Screenshots at desktop and phone width, checked with axe-core.
 */
import { describe, expect, it } from 'vitest';
import type { Dialog, Page } from 'playwright-core';
import { checkPage, consoleBrowserTestBed, reloadPage, signedInPage } from './browser.test-support.ts';
import { createTestUser } from './console.test-support.ts';
import { createForm } from '../forms/definitions/forms.service.ts';
import { requireList } from '../marketing/lists/lists.service.ts';

const rig = consoleBrowserTestBed();
const SPENT = 'This key was already shown; create a new one if you lost it.';

const keyCount = async () =>
  (
    await rig.t.ctx.database.db
      .selectFrom('api_keys')
      .select('id')
      .where('customer_id', '=', rig.a.account.customer_id)
      .execute()
  ).length;

async function ownerPage(): Promise<Page> {
  const owner = await createTestUser(rig.t, rig.a.account.customer_id, 'owner');
  const page = await signedInPage(rig.browser, rig.base, owner.email);
  await page.waitForURL(/\/console$/);
  return page;
}

/** Records the beforeunload prompts the page raises, answering each with `leave` (true: leave, false: stay). */
function prompts(page: Page, leave: () => boolean): string[] {
  const seen: string[] = [];
  page.on('dialog', (d: Dialog) => {
    seen.push(d.type());
    void (leave() ? d.accept() : d.dismiss());
  });
  return seen;
}

/** Clicks a link away from the page and waits until the browser either left (true) or stayed (false). */
async function tryLeave(page: Page, link: string): Promise<boolean> {
  const before = page.url();
  await page.getByRole('link', { name: link, exact: true }).first().click({ noWaitAfter: true });
  await page.waitForTimeout(500);
  await page.waitForLoadState('load');
  return page.url() !== before;
}

describe('a new key in Chromium', () => {
  it('shows the value once: a reload and the back button make no second key and say it was shown', async () => {
    const page = await ownerPage();
    await page.goto(`${rig.base}/console/keys`);
    const before = await keyCount();
    await page.getByLabel('Description').fill('front desk, production');
    await page.getByRole('button', { name: 'Create key' }).click();
    const value = (await page.locator('#new-key').textContent())!.trim();
    expect(value).toMatch(/^sp_/);
    expect(page.url()).toMatch(/\/console\/keys\/new\/[\w-]+$/);
    await checkPage(page, 'key-shown-once');
    expect(await keyCount()).toBe(before + 1);

    await reloadPage(page);
    await page.getByText(SPENT).waitFor();
    expect(await page.content()).not.toContain(value);
    expect(await keyCount()).toBe(before + 1);
    await checkPage(page, 'key-already-shown');

    await page.getByRole('link', { name: 'Back to the keys' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.goBack();
    await page.getByText(SPENT).waitFor();
    expect(await page.content()).not.toContain(value);
    expect(await keyCount()).toBe(before + 1);
    await page.close();
  });

  it('going back to the one-time page right after leaving it does not show the value again', async () => {
    const page = await ownerPage();
    await page.goto(`${rig.base}/console/keys`);
    await page.getByLabel('Description').fill('lab results');
    await page.getByRole('button', { name: 'Create key' }).click();
    const value = (await page.locator('#new-key').textContent())!.trim();
    await page.getByRole('link', { name: 'Back to the keys' }).first().click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.goBack();
    await page.getByText(SPENT).waitFor();
    expect(await page.content()).not.toContain(value);
    await page.close();
  });
});

describe('unsaved changes in Chromium', () => {
  it('asks before leaving the template editor with changes, and not after saving', async () => {
    const page = await ownerPage();
    let leave = false;
    const seen = prompts(page, () => leave);
    await page.goto(`${rig.base}/console/templates/new`);
    await page.getByLabel('Name').pressSequentially('Appointment reminder');
    expect(await tryLeave(page, 'Overview')).toBe(false);
    expect(seen).toEqual(['beforeunload']);
    await checkPage(page, 'template-editor-unsaved');
    await page.getByRole('button', { name: 'Save template' }).click();
    await page.getByText('The template is saved.').waitFor();
    expect(await tryLeave(page, 'Overview')).toBe(true);
    expect(seen).toEqual(['beforeunload']);
    leave = true;
    await page.close();
  });

  it('asks before leaving the form builder with changes, lets the user leave, and not after saving', async () => {
    const { id } = await createForm(
      rig.t.ctx,
      rig.a.account.customer_id,
      { title: 'Intake', form_json: { body: [] }, active: false },
      requireList,
    );
    const page = await ownerPage();
    let leave = false;
    const seen = prompts(page, () => leave);
    await page.goto(`${rig.base}/console/forms/${id}`);
    const title = page.getByLabel('Title', { exact: true });
    await title.press('End');
    await title.pressSequentially(' for new patients');
    expect(await tryLeave(page, 'All forms')).toBe(false);
    expect(seen).toEqual(['beforeunload']);
    await checkPage(page, 'form-builder-unsaved');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Form saved').waitFor();
    expect(await tryLeave(page, 'All forms')).toBe(true);
    expect(seen).toEqual(['beforeunload']);
    await page.goto(`${rig.base}/console/forms/${id}`);
    await page.getByLabel('Title', { exact: true }).pressSequentially('!');
    leave = true;
    expect(await tryLeave(page, 'All forms')).toBe(true);
    expect(seen).toEqual(['beforeunload', 'beforeunload']);
    await page.close();
  });

  it('asks before leaving the mailing editor with a subject typed, and not when nothing changed', async () => {
    const page = await ownerPage();
    const seen = prompts(page, () => false);
    await page.goto(`${rig.base}/console/campaigns`);
    expect(await tryLeave(page, 'Overview')).toBe(true);
    expect(seen).toEqual([]);
    await page.goto(`${rig.base}/console/campaigns`);
    await page.getByLabel('Subject').pressSequentially('Flu shots are here');
    expect(await tryLeave(page, 'Overview')).toBe(false);
    expect(seen).toEqual(['beforeunload']);
    await page.close();
  });
});
