/**
 * Campaigns in Chromium: compose a mailing, send a test and then the mailing to a list through a real STARTTLS SMTP
 * sink, watch the send's figures change on its page, open and click the real tracking links of a received mail and see
 * the counters follow. Every page is screenshotted (desktop and phone) and checked with axe-core.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPage, expectPhoneReadable } from '../browser.test-support.ts';
import { waitFor } from '../../test/wait.ts';
import { patientsAndEditor, startCampaignRig, type CampaignRig } from './campaigns.browser.test-support.ts';

let rig: CampaignRig;

describe('campaigns in Chromium', () => {
  beforeAll(async () => {
    rig = await startCampaignRig();
  });
  afterAll(async () => rig?.close());

  it('composes, test-sends and sends a campaign, then follows its opens and clicks', async () => {
    const { a, sink, local } = rig;
    const page = await patientsAndEditor(rig);
    // Mail is relayed here, so no page speaks of capture mode.
    expect(await page.getByRole('region', { name: 'Capture mode' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Campaigns' }).click();
    await page.getByLabel('Subject').fill('Flu shots are here');
    await page.getByLabel('From address').fill(`news@${a.domain}`);
    await page.getByRole('radio', { name: 'HTML (expert)' }).check();
    await page.getByLabel('From name').fill('North Clinic');
    await page
      .getByLabel('HTML', { exact: true })
      .fill(
        '<p>Hello {{first_name}},</p><p><a href="https://clinic.example.org/flu">Book a flu shot</a></p>',
      );
    await checkPage(page, 'campaigns');
    await page.getByRole('button', { name: 'Save mailing' }).click();
    await page.getByText('The mailing was saved.').waitFor();
    const mailingUrl = page.url();
    await page.goto(new URL('/console/campaigns', mailingUrl).href);
    await checkPage(page, 'campaigns-list');
    await page.setViewportSize({ width: 390, height: 844 });
    await expectPhoneReadable(page, 'campaigns-list');
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(mailingUrl);

    await page.getByLabel('Send a test to').fill('ana@example.org');
    await page.getByRole('button', { name: 'Send test' }).click();
    await page.getByText('A test was sent to ana@example.org.').waitFor();
    await waitFor(
      () => sink.received.some((m) => m.to.includes('ana@example.org')),
      15_000,
      50,
      'the test mail',
    );
    await checkPage(page, 'campaigns-mailing');

    // Nothing is chosen for the user: the review needs a list, and names what it will do.
    expect(await page.getByLabel('To list').inputValue()).toBe('');
    expect(await page.getByRole('option', { name: /^Every contact in the account/ }).count()).toBe(1);
    await page.getByLabel('To list').selectOption({ label: 'Patients (3)' });
    await page.getByRole('button', { name: 'Review the send' }).click();
    await page.getByRole('heading', { name: 'Check before sending' }).waitFor();
    expect(await page.locator('[data-field="recipients"]').textContent()).toContain('3 people');
    expect(await page.locator('[data-field="test"]').textContent()).toContain(
      'A test went to ana@example.org',
    );
    await checkPage(page, 'campaigns-review');
    // A double click sends once.
    await page.getByRole('button', { name: 'Send to 3 people now' }).dblclick();
    await page.waitForURL(/\/console\/campaigns\/sends\//);
    await page.getByText('sent', { exact: true }).waitFor({ timeout: 30_000 });
    expect(await page.locator('[data-field="delivered"]').textContent()).toBe('3');
    await checkPage(page, 'campaigns-send');

    const received = await waitFor(() => sink.received.find((m) => m.to.includes('bo@example.org')), 15_000);
    const mail = await received.parsed();
    const htmlBody = String(mail.html);
    const pixel = /<img[^>]+src="([^"]+)"/.exec(htmlBody)![1]!;
    const click = /<a[^>]+href="([^"]+)"[^>]*>Book a flu shot/.exec(htmlBody)![1]!;
    expect((await page.request.get(local(pixel))).status()).toBe(200);
    expect((await page.request.get(local(click), { maxRedirects: 0 })).status()).toBe(302);
    await page.reload();
    expect(await page.locator('[data-field="opened"]').textContent()).toBe('1');
    expect(await page.locator('[data-field="clicked"]').textContent()).toBe('1');
    await checkPage(page, 'campaigns-send-engaged');

    // Sent: read only, one send, and a copy to send again.
    await page.goto(mailingUrl);
    await page.getByText('This mailing was sent, so it can no longer change').waitFor();
    expect(await page.getByRole('button', { name: 'Review the send' }).count()).toBe(0);
    expect(await page.locator('.card').filter({ hasText: 'Sends' }).locator('tbody tr').count()).toBe(1);
    await checkPage(page, 'campaigns-mailing-sent');
  }, 120_000);
});
