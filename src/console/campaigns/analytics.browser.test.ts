/**
 * Campaign analytics in Chromium: two sends of a mailing go through a real SMTP sink; opening and clicking the real
 * tracking links of the delivered mail changes the send page's chart data and its clicks-per-link table; the people
 * who clicked a link are listed; the two sends are compared side by side. Screenshots at desktop and phone width, axe.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { checkPage, expectNoSidewaysScroll } from '../browser.test-support.ts';
import { waitFor } from '../../test/wait.ts';
import {
  patientsAndEditor,
  sendToList,
  startCampaignRig,
  type CampaignRig,
} from './campaigns.browser.test-support.ts';

let rig: CampaignRig;

/** The numbers of the first chart's table: one row per hour, [opened, clicked]. */
async function chartRows(page: Page): Promise<number[][]> {
  const rows = page.locator('figure.chart').first().locator('.chart-table tbody tr');
  const out: number[][] = [];
  for (const row of await rows.all()) out.push((await row.locator('td').allTextContents()).map(Number));
  return out;
}

const sum = (rows: number[][], col: number) => rows.reduce((n, r) => n + (r[col] ?? 0), 0);

describe('campaign analytics in Chromium', () => {
  beforeAll(async () => {
    rig = await startCampaignRig();
  });
  afterAll(async () => rig?.close());

  it('shows opens and clicks over time, clicks per link, who clicked, and two sends side by side', async () => {
    const { a, sink, base, local } = rig;
    const page = await patientsAndEditor(rig);
    await page.getByRole('link', { name: 'Campaigns' }).click();
    await page.getByLabel('Subject').fill('Flu shots are here');
    await page.getByLabel('From address').fill(`news@${a.domain}`);
    await page.getByRole('radio', { name: 'HTML (expert)' }).check();
    await page
      .getByLabel('HTML', { exact: true })
      .fill(
        '<p>Hello {{first_name}},</p><p><a href="https://clinic.example.org/flu">Book a flu shot</a></p>' +
          '<p><a href="https://clinic.example.org/hours">Opening hours</a></p>',
      );
    await page.getByRole('button', { name: 'Save mailing' }).click();
    await page.getByText('The mailing was saved.').waitFor();
    const mailingUrl = page.url();

    const sendOnce = async () => {
      await sendToList(page, 'Patients (3)', '3 people');
      await page.getByText('sent', { exact: true }).waitFor({ timeout: 30_000 });
      return page.url();
    };
    const first = await sendOnce();
    await waitFor(() => sink.received.length >= 3, 15_000, 50, 'three mails');
    await page.reload();
    const before = await chartRows(page);
    expect(sum(before, 0)).toBe(0);
    expect(await page.locator('.links-table tbody tr').count()).toBe(2);
    await checkPage(page, 'campaigns-analytics-before');

    // Bo opens the mail and clicks the first link twice; Cy clicks the second link (a click counts as an open).
    const mailOf = async (to: string) => {
      const m = await waitFor(() => sink.received.find((r) => r.to.includes(to)), 15_000);
      return String((await m.parsed()).html);
    };
    const bo = await mailOf('bo@example.org');
    const cy = await mailOf('cy@example.org');
    const pixel = /<img[^>]+src="([^"]+)"/.exec(bo)![1]!;
    const boClick = /<a[^>]+href="([^"]+)"[^>]*>Book a flu shot/.exec(bo)![1]!;
    const cyClick = /<a[^>]+href="([^"]+)"[^>]*>Opening hours/.exec(cy)![1]!;
    expect((await page.request.get(local(pixel))).status()).toBe(200);
    for (const url of [boClick, boClick, cyClick])
      expect((await page.request.get(local(url), { maxRedirects: 0 })).status()).toBe(302);

    await page.reload();
    const after = await chartRows(page);
    expect(sum(after, 0)).toBe(2);
    expect(sum(after, 1)).toBe(2);
    const rows = page.locator('.links-table tbody tr');
    await expect.poll(() => rows.nth(0).locator('td[data-label="Clicks"]').textContent()).toBe('2');
    expect(await rows.nth(0).locator('td[data-label="People"]').textContent()).toBe('1');
    expect(await rows.nth(1).locator('td[data-label="Clicks"]').textContent()).toBe('1');
    // The heat bar of the most clicked link is full, the other half.
    expect(await rows.nth(0).locator('.heat-fill').getAttribute('width')).toBe('100');
    expect(await rows.nth(1).locator('.heat-fill').getAttribute('width')).toBe('50');
    await page.locator('figure.chart.chart-drawn canvas').first().waitFor();
    await checkPage(page, 'campaigns-analytics');
    await expectNoSidewaysScroll(page, 'the send page');

    await page.getByRole('link', { name: 'See who clicked https://clinic.example.org/flu' }).click();
    await page.getByRole('link', { name: 'bo@example.org' }).waitFor();
    expect(await page.getByRole('link', { name: 'cy@example.org' }).count()).toBe(0);
    await checkPage(page, 'campaigns-link-clickers');

    // A sent mailing is sent again as a copy.
    await page.goto(mailingUrl);
    await page.getByRole('button', { name: 'Duplicate' }).click();
    await page.getByText('This copy is not sent yet').waitFor();
    const second = await sendOnce();
    const id = (u: string) => u.split('/').pop()!;
    await page.goto(`${base}/console/campaigns`);
    await page.getByRole('link', { name: 'Compare two sends' }).click();
    await page.getByLabel('First send').selectOption(id(first));
    await page.getByLabel('Second send').selectOption(id(second));
    await page.getByRole('button', { name: 'Compare' }).click();
    const opened = page.getByRole('row', { name: /^Opened/ });
    expect(await opened.locator('td').allTextContents()).toEqual(['2 (66.7%)', '0 (0.0%)']);
    await checkPage(page, 'campaigns-compare');
    await expectNoSidewaysScroll(page, 'the comparison');
  }, 180_000);
});
