/**
 * What the campaign browser tests share: an app relaying through a real STARTTLS SMTP sink with a delivery worker,
 * listening on a loopback port, Chromium, a list of three patients, and a signed-in editor's page.
 */
import type { Browser, Page } from 'playwright-core';
import { launchChromium, signedInPage } from '../browser.test-support.ts';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { startSmtpSink, type SmtpSink } from '../../test/smtp-sink.ts';
import { startDeliveryWorker } from '../../delivery/delivery.test-support.ts';
import type { Worker } from '../../jobs/worker.ts';
import { createList } from '../../marketing/lists/lists.service.ts';
import { createSubscriber } from '../../marketing/subscribers/subscribers.service.ts';
import { createTestUser } from '../console.test-support.ts';

/** The running parts of a campaign browser test. */
export interface CampaignRig {
  t: TestApp;
  a: TestAccount;
  sink: SmtpSink;
  browser: Browser;
  base: string;
  /** A URL from a received mail, pointed at the test server. */
  local(url: string): string;
  close(): Promise<void>;
}

/** Starts the sink, the app, its delivery worker and Chromium. */
export async function startCampaignRig(): Promise<CampaignRig> {
  const sink = await startSmtpSink({ tls: 'starttls' });
  const t = await createTestApp({ config: { transport: 'relay', relayUrl: sink.url, tlsVerify: false } });
  const a = await t.createAccount();
  const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  const worker: Worker = startDeliveryWorker(t);
  const browser = await launchChromium();
  return {
    t,
    a,
    sink,
    browser,
    base,
    local: (url) => {
      const u = new URL(url.replace(/&amp;/g, '&'));
      return base + u.pathname + u.search;
    },
    close: async () => {
      await browser.close();
      await worker.stop(2000);
      await t.close();
      await sink.close();
    },
  };
}

/** Puts Ana, Bo and Cy on a new list "Patients" and signs a new editor in; answers the editor's page. */
export async function patientsAndEditor(rig: CampaignRig): Promise<Page> {
  const { t, a, browser, base } = rig;
  const editor = await createTestUser(t, a.account.customer_id, 'editor');
  const list = await createList(t.ctx, a.account.customer_id, 'Patients');
  for (const [email, first] of [
    ['ana@example.org', 'Ana'],
    ['bo@example.org', 'Bo'],
    ['cy@example.org', 'Cy'],
  ])
    await createSubscriber(t.ctx, a.account.customer_id, { email: email!, first_name: first! }, list.id);
  return signedInPage(browser, base, editor.email);
}

/**
 * Sends the mailing of the open mailing page as a person does: chooses the list, reviews, confirms; answers once the
 * send's page is open.
 */
export async function sendToList(page: Page, listLabel: string, recipients: string): Promise<void> {
  await page.getByLabel('To list').selectOption({ label: listLabel });
  await page.getByRole('button', { name: 'Review the send' }).click();
  await page.getByRole('heading', { name: 'Check before sending' }).waitFor();
  await page.getByRole('button', { name: `Send to ${recipients} now` }).click();
  await page.waitForURL(/\/console\/campaigns\/sends\//);
}
