/**
 * Links in Sealpost's own mail, followed in headless Chromium: a form notification and an invitation are delivered by a
 * real worker through the relay transport to a real SMTP server on loopback; the test reads each message as received,
 * opens its link, signs in when asked, and lands on the console page the link means (the response; setting a
 * password), never on a JSON answer.
 */
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { Worker } from '../jobs/worker.ts';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { startSmtpSink, type ReceivedMail, type SmtpSink } from '../test/smtp-sink.ts';
import { startDeliveryWorker } from '../delivery/delivery.test-support.ts';
import { waitFor } from '../test/wait.ts';
import { createForm, GOOD } from '../forms/forms.test-support.ts';
import { createTestUser, TEST_PASSWORD } from './console.test-support.ts';
import { checkPage, launchChromium } from './browser.test-support.ts';

let t: TestApp;
let a: TestAccount;
let sink: SmtpSink;
let worker: Worker;
let browser: Browser;
let base: string;
let ownerEmail: string;

/** A loopback port free right now: the public URL in the mail must name the port the app then listens on. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The first message the sink received for `to`, and the one console link in its text. */
async function linkMailedTo(to: string): Promise<{ mail: ReceivedMail; link: string; text: string }> {
  const mail = await waitFor(
    () => sink.received.find((m) => m.to.includes(to)),
    20_000,
    25,
    `a message to ${to}`,
  );
  const text = (await mail.parsed()).text ?? '';
  const links = text.match(/https?:\/\/\S+/g) ?? [];
  expect(links).toHaveLength(1);
  return { mail, link: links[0]!, text };
}

describe("links in Sealpost's own mail", () => {
  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp({
      config: {
        transport: 'relay',
        tlsVerify: false,
        deliveryRetrySchedule: [200],
        publicUrl: base,
        formsSubmitPerMinute: 0,
      },
    });
    a = await t.createAccount();
    ownerEmail = (
      await createTestUser(t, a.account.customer_id, 'owner', { email: 'owner@northclinic.example' })
    ).email;
    await t.app.listen({ host: '127.0.0.1', port });
    sink = await startSmtpSink();
    worker = startDeliveryWorker(t, { relayUrl: sink.url });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await worker?.stop(2000);
    await sink?.close();
    await t?.close();
  });

  it('a form notification links to the response page, through sign-in, and holds no answer', async () => {
    const formId = await createForm(t.app, a.auth, { recipient: 'desk@northclinic.example' });
    const submitted = await t.app.inject({
      method: 'POST',
      url: `/v1/forms/api/forms/${formId}/submissions`,
      payload: { form_data: GOOD },
    });
    expect(submitted.statusCode).toBe(201);
    const { link, text } = await linkMailedTo('desk@northclinic.example');
    expect(text).not.toContain('Lovelace');
    expect(link).toMatch(new RegExp(`^${base}/console/forms/${formId}/responses/[\\w-]+$`));

    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const first = await page.goto(link);
    expect(first!.headers()['content-type']).toContain('text/html');
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
    await page.getByLabel('Email').fill(ownerEmail);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(link);
    await page.getByText('Ada Lovelace').first().waitFor();
    await checkPage(page, 'mail-link-response');
    const viewed = await t.ctx.database.db
      .selectFrom('audit_log')
      .select('target')
      .where('action', '=', 'form.submission_read')
      .where('customer_id', '=', a.account.customer_id)
      .execute();
    expect(viewed.map((v) => v.target)).toEqual([`form_submission:${link.split('/').pop()}`]);
    await context.close();
  }, 120_000);

  it('an invitation links to the set-password page, and the password set there signs in', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${base}/console/settings/users`);
    await page.getByLabel('Email').fill(ownerEmail);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/console/settings/users`);
    await page.getByLabel('Email').fill('reception@northclinic.example');
    await page.getByLabel('Role', { exact: true }).selectOption('editor');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText('reception@northclinic.example').first().waitFor();
    await context.close();

    const { link } = await linkMailedTo('reception@northclinic.example');
    expect(link).toMatch(new RegExp(`^${base}/console/set-password\\?token=[\\w-]+$`));
    const invited = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const p = await invited.newPage();
    p.setDefaultTimeout(15_000);
    await p.goto(link);
    await p.getByLabel('New password').fill('a long new password');
    await p.getByLabel('Repeat the password').fill('a long new password');
    await p.getByRole('button', { name: /password/i }).click();
    // The form answers with a redirect to the sign-in page, which says the password is set.
    await p.getByText('Your password is set.').waitFor();
    expect(new URL(p.url()).pathname).toBe('/console/sign-in');
    await p.getByLabel('Email').fill('reception@northclinic.example');
    await p.getByLabel('Password').fill('a long new password');
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.getByRole('heading', { name: 'Overview' }).waitFor();
    await invited.close();
  }, 120_000);
});
