/**
 * The bot defence in Chromium: an owner turns proof of work on in the console; a visitor's browser solves the puzzle
 * with the installation's script and the response arrives; a browser without JavaScript is refused when it posts too
 * soon and accepted after the minimum. Screenshots at desktop and phone width, and axe-core on each page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createTestUser } from '../console.test-support.ts';
import { createForm } from '../../forms/forms.test-support.ts';
import {
  axeViolations,
  checkPage,
  signedInPage,
  startConsoleBrowser,
  screenshot,
  type ConsoleBrowserRig,
} from '../browser.test-support.ts';

let rig: ConsoleBrowserRig;
let ownerEmail: string;

const answers = async (page: Page, name: string) => {
  await page.getByLabel('Full name').fill(name);
  await page.getByLabel('Email').fill('mary@example.org');
  await page.getByLabel('I agree').check();
};

describe('bot defence in Chromium', () => {
  beforeAll(async () => {
    rig = await startConsoleBrowser({ config: { formsSubmitPerMinute: 0 } });
    ownerEmail = (await createTestUser(rig.t, rig.a.account.customer_id, 'owner')).email;
  });
  afterAll(async () => rig?.close());

  it('is turned on in the console, solved by the visitor’s browser, and the response arrives', async () => {
    const { t, a, browser, base } = rig;
    const id = await createForm(t.app, a.auth, { title: 'Clinic contact' });
    const page = await signedInPage(browser, base, ownerEmail);
    await page.waitForURL(`${base}/console`);
    await page.goto(`${base}/console/forms/${id}/look`);
    await page.getByRole('radio', { name: 'Proof of work' }).check();
    await page.getByLabel(/Fewest seconds/).fill('6');
    await page.getByLabel(/Puzzle difficulty/).fill('16');
    await page.getByRole('button', { name: 'Save the bot defence' }).click();
    await page.getByText('Bot defence saved').waitFor();
    expect(await page.getByRole('radio', { name: 'Proof of work' }).isChecked()).toBe(true);
    await checkPage(page, 'forms-bot-defence');

    const visitor = await browser.newPage();
    visitor.setDefaultTimeout(15_000);
    const problems: string[] = [];
    visitor.on('pageerror', (e) => problems.push(e.message));
    visitor.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    await visitor.goto(`${base}/f/${id}`);
    const shownAt = Date.now();
    await answers(visitor, 'Mary Seacole');
    await visitor.locator('form[data-sp-solved]').waitFor({ state: 'attached' });
    expect(await visitor.locator('input[name=_sp_pow]').inputValue()).toMatch(/^\d+$/);
    await checkPage(visitor, 'forms-hosted-bot-defence');
    // A person takes longer than the form's six-second minimum (long enough that a slow machine still submits the no-script form inside it); the test waits it out like one.
    await visitor.waitForTimeout(Math.max(0, 6100 - (Date.now() - shownAt)));
    await visitor.getByRole('button', { name: 'Submit' }).click();
    await visitor.getByText('Thank you').waitFor();
    expect(problems).toEqual([]);

    const list = await t.app.inject({
      method: 'GET',
      url: `/v1/forms/api/forms/${id}/submissions`,
      headers: a.auth,
    });
    expect(list.json().total).toBe(1);
    expect(JSON.parse(list.json().data[0].form_data)).toMatchObject({ name: 'Mary Seacole' });

    const noScript = await browser.newPage({ javaScriptEnabled: false });
    noScript.setDefaultTimeout(15_000);
    await noScript.goto(`${base}/f/${id}`);
    const noScriptShownAt = Date.now();
    await answers(noScript, 'Florence Nightingale');
    await noScript.getByRole('button', { name: 'Submit' }).click();
    await noScript
      .getByRole('alert')
      .getByText(/quicker than/)
      .waitFor();
    expect(await noScript.getByLabel('Full name').inputValue()).toBe('Florence Nightingale');
    for (const [suffix, size] of [
      ['', { width: 1280, height: 800 }],
      ['-phone', { width: 390, height: 844 }],
    ] as const) {
      await noScript.setViewportSize(size);
      await screenshot(noScript, `forms-hosted-bot-refused${suffix}`);
    }
    // axe needs scripts, which this page has off: it checks the same markup in a page that runs them.
    const checker = await browser.newPage();
    await checker.setContent(await noScript.content());
    expect(await axeViolations(checker), 'forms-hosted-bot-refused').toEqual([]);
    await checker.close();
    // The refused page keeps the first token, so the form's six seconds count from the first showing.
    await noScript.waitForTimeout(Math.max(0, 6100 - (Date.now() - noScriptShownAt)));
    await noScript.getByLabel('I agree').check();
    await noScript.getByRole('button', { name: 'Submit' }).click();
    await noScript.getByText('Thank you').waitFor();
    const after = await t.app.inject({
      method: 'GET',
      url: `/v1/forms/api/forms/${id}/submissions`,
      headers: a.auth,
    });
    expect(after.json().total).toBe(2);
  }, 120_000);
});
