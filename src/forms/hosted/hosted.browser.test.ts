/** The hosted page in headless Chromium: fill, fail, see the message beside the field, fix, submit, thank-you; then the API and CSV. */
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../../test/browser.ts';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { createForm } from '../forms.test-support.ts';

let t: TestApp;
let a: TestAccount;
let browser: Browser;
let base: string;

describe('hosted form page in Chromium', () => {
  beforeAll(async () => {
    t = await createTestApp({ config: { formsSubmitPerMinute: 0 } });
    a = await t.createAccount();
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows the error beside the field, then the thank-you page, and the answer reaches the API and the CSV', async () => {
    const id = await createForm(t.app, a.auth, { form_css: 'h1{color:#0a5}' });
    const page = await browser.newPage({ javaScriptEnabled: false });
    page.setDefaultTimeout(15_000);
    await page.goto(`${base}/f/${id}`);
    await page.getByLabel('Full name').fill('Katherine Johnson');
    await page.getByLabel('Email').fill('katherine-at-example');
    await page.getByLabel('Topic').selectOption('appt');
    await page.getByLabel('I agree').check();
    await page.getByRole('button', { name: 'Submit' }).click();

    const email = page.getByLabel('Email');
    await expect.poll(() => email.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await email.getAttribute('aria-describedby'))!;
    expect(await page.locator(`#${describedBy}`).textContent()).toBe('must be a valid email address');
    expect(await page.getByLabel('Full name').inputValue()).toBe('Katherine Johnson');
    mkdirSync('.test-artifacts', { recursive: true });
    await page.screenshot({ path: '.test-artifacts/forms-hosted-error.png', fullPage: true });

    await email.fill('katherine@example.org');
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.getByText('Thank you').waitFor();
    expect(page.url()).toBe(`${base}/f/${id}/thanks`);
    await page.screenshot({ path: '.test-artifacts/forms-hosted-thanks.png', fullPage: true });

    const list = await t.app.inject({
      method: 'GET',
      url: `/v1/forms/api/forms/${id}/submissions`,
      headers: a.auth,
    });
    expect(list.json().total).toBe(1);
    expect(JSON.parse(list.json().data[0].form_data)).toMatchObject({
      name: 'Katherine Johnson',
      email: 'katherine@example.org',
      topic: 'appt',
      consent: true,
    });
    const csv = await t.app.inject({
      method: 'GET',
      url: `/v1/forms/api/forms/${id}/submissions/submission-csv`,
      headers: a.auth,
    });
    expect(csv.body).toContain('"Katherine Johnson","katherine@example.org","appt","","Yes"');
  });

  it('puts each radio and checkbox label on the same line as its control, to its right', async () => {
    const form_json = {
      body: [
        {
          type: 'RadioGroup',
          id: 'r',
          properties: { field_name: 'visit', text: 'Visit type', options: ['In person', 'Video call'] },
        },
        {
          type: 'CheckboxGroup',
          id: 'c',
          properties: { field_name: 'days', text: 'Days', options: ['Monday', 'Tuesday'] },
        },
        { type: 'Checkbox', id: 'k', properties: { field_name: 'consent', text: 'I agree' } },
      ],
    };
    const id = await createForm(t.app, a.auth, { form_json });
    const page = await browser.newPage({ javaScriptEnabled: false });
    page.setDefaultTimeout(15_000);
    await page.goto(`${base}/f/${id}`);
    for (const label of ['In person', 'Video call', 'Monday', 'Tuesday', 'I agree']) {
      const control = (await page.getByLabel(label).boundingBox())!;
      const text = (await page.locator('label', { hasText: label }).boundingBox())!;
      expect(text.x).toBeGreaterThan(control.x + control.width - 1);
      expect(Math.abs(text.y + text.height / 2 - (control.y + control.height / 2))).toBeLessThan(
        text.height / 2,
      );
    }
    await page.close();
  });

  it('keeps fields at 16 px on a phone, so focusing one does not zoom, with thumb-sized targets', async () => {
    const form_json = {
      body: [
        { type: 'TextInput', id: 't', properties: { field_name: 'name', text: 'Your name' } },
        {
          type: 'TextInput',
          id: 'e',
          properties: { field_name: 'email', text: 'Email', input_mask: 'Email' },
        },
        {
          type: 'Select',
          id: 's',
          properties: { field_name: 'clinic', text: 'Clinic', options: ['North', 'South'] },
        },
        { type: 'TextArea', id: 'a', properties: { field_name: 'note', text: 'Note' } },
        { type: 'Checkbox', id: 'k', properties: { field_name: 'consent', text: 'I agree' } },
        {
          type: 'RadioGroup',
          id: 'r',
          properties: { field_name: 'visit', text: 'Visit', options: ['First', 'Follow-up'] },
        },
        { type: 'DateInput', id: 'd', properties: { field_name: 'dob', text: 'Date of birth' } },
        { type: 'NumberInput', id: 'n', properties: { field_name: 'age', text: 'Age' } },
        { type: 'FileUpload', id: 'f', properties: { field_name: 'card', text: 'Insurance card' } },
        { type: 'Signature', id: 'g', properties: { field_name: 'sig', text: 'Signature' } },
      ],
    };
    const id = await createForm(t.app, a.auth, { form_json, signable: true });
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, javaScriptEnabled: false });
    page.setDefaultTimeout(15_000);
    await page.goto(`${base}/f/${id}`);
    const sizes = await page.evaluate(() => {
      type El = {
        id: string;
        name: string;
        type: string;
        closest(s: string): unknown;
        getBoundingClientRect(): { height: number; width: number };
      };
      const w = globalThis as unknown as {
        document: { querySelectorAll(s: string): El[]; querySelector(s: string): El | null };
        getComputedStyle(e: El): { fontSize: string };
      };
      return [...w.document.querySelectorAll('input:not([type=hidden]), textarea, select, button')]
        .filter((e) => !e.closest('.sp-hp') && e.getBoundingClientRect().height > 1)
        .map((e) => {
          // A checkbox or radio button is tapped through its label too, so the label is the target to measure.
          const box = e.type === 'checkbox' || e.type === 'radio';
          const target = box ? w.document.querySelector(`label[for="${e.id}"]`) : e;
          return {
            what: `${e.type} ${e.name}`,
            box,
            font: parseFloat(w.getComputedStyle(e).fontSize),
            height: target?.getBoundingClientRect().height ?? 0,
            width: target?.getBoundingClientRect().width ?? 0,
          };
        });
    });
    expect(sizes.length).toBeGreaterThanOrEqual(11);
    for (const s of sizes) {
      // A checkbox holds no text to zoom into; every other control keeps 16 px text.
      if (!s.box) expect(s.font, s.what).toBeGreaterThanOrEqual(16);
      expect(s.height, s.what).toBeGreaterThanOrEqual(44);
      expect(s.width, s.what).toBeGreaterThanOrEqual(44);
    }
    await page.screenshot({ path: '.test-artifacts/forms-hosted-phone.png', fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: '.test-artifacts/forms-hosted-desktop.png', fullPage: true });
    await page.close();
  });
});
