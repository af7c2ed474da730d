/**
 * Capture mode and first steps in Chromium: the overview's getting-started checklist with links to each step, the
 * message log saying "captured, not sent", and Captured mail listing a campaign copy beside a transactional message
 * with its kind and mailing. Screenshots at desktop and phone width, checked with axe-core.
 */
import { describe, expect, it } from 'vitest';
import { checkPage, consoleBrowserTestBed, signedInPage } from './browser.test-support.ts';
import { createTestUser } from './console.test-support.ts';
import { sendMessage, startDeliveryWorker, waitUntilFinished } from '../delivery/delivery.test-support.ts';
import { sendCapturedCampaign } from './captured.test-support.ts';

const rig = consoleBrowserTestBed();

describe('capture mode in Chromium', () => {
  it('shows the checklist, the log in capture wording and a campaign copy in Captured mail', async () => {
    const worker = startDeliveryWorker(rig.t);
    const id = await sendMessage(rig.t, rig.a, {
      recipients: ['pat@patients.example'],
      headers: { subject: 'Appointment reminder', from: `desk@${rig.a.domain}` },
    });
    await waitUntilFinished(rig.t, id);
    const { mailing } = await sendCapturedCampaign(rig.t, rig.a, 'Flu shots this week');
    await worker.stop();
    const owner = await createTestUser(rig.t, rig.a.account.customer_id, 'owner');
    const page = await signedInPage(rig.browser, rig.base, owner.email);
    await page.waitForURL(/\/console$/);

    const checklist = page.getByRole('region', { name: 'Getting started' });
    expect(await checklist.getByText('3 of 5 done').isVisible()).toBe(true);
    expect(await checklist.getByRole('link', { name: 'Publish a form' }).getAttribute('href')).toBe(
      '/console/forms',
    );
    expect(await page.getByText('Captured, not sent').first().isVisible()).toBe(true);
    await checkPage(page, 'overview-getting-started');
    await checklist.getByRole('link', { name: 'Import a list' }).click();
    await page.waitForURL(/\/console\/audiences\/imports$/);

    await page.goto(`${rig.base}/console/messages`);
    const row = page.getByRole('row').filter({ hasText: 'pat@patients.example' });
    expect(await row.getByText('captured, not sent').isVisible()).toBe(true);
    await checkPage(page, 'messages-capture-mode');

    await page.goto(`${rig.base}/console/captured`);
    const copy = page.getByRole('row').filter({ hasText: 'hal@patients.example' });
    expect(await copy.getByRole('cell', { name: 'campaign', exact: true }).isVisible()).toBe(true);
    const tx = page.getByRole('row').filter({ hasText: 'pat@patients.example' });
    expect(await tx.getByRole('cell', { name: 'transactional', exact: true }).isVisible()).toBe(true);
    await checkPage(page, 'captured-with-campaign');
    await page.getByLabel('Kind').selectOption('campaign');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/kind=campaign/);
    expect(await page.getByRole('row').filter({ hasText: 'pat@patients.example' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Flu shots this week' }).click();
    await page.waitForURL(new RegExp(`/console/campaigns/mailings/${mailing}$`));
    await page.close();
  });
});
