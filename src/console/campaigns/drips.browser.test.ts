/**
 * Drips in Chromium: a branching drip drawn as a graph; started from its page, new list members enroll and the drip's
 * steps run on a real worker, and the figures per node follow; paused from its page. Screenshots at desktop and phone
 * width, axe, and no sideways scrolling on a phone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkPage,
  expectNoSidewaysScroll,
  signedInPage,
  consoleBrowserTestBed,
} from '../browser.test-support.ts';
import { createWorker, type Worker } from '../../jobs/worker.ts';
import { waitFor } from '../../test/wait.ts';
import { createList } from '../../marketing/lists/lists.service.ts';
import { createSubscriber } from '../../marketing/subscribers/subscribers.service.ts';
import { createDrip } from '../../marketing/drips/drips.service.ts';
import { dripQueues } from '../../marketing/drips/drips.engine.ts';
import { enrollNew } from '../../marketing/drips/drips.enroll.ts';
import { branchingGraph, storeMailing } from '../../marketing/drips/drips.test-support.ts';
import { createTestUser } from '../console.test-support.ts';
import { keyOf } from '../../marketing/marketing.test-support.ts';

let worker: Worker;

describe('drips in Chromium', () => {
  const rig = consoleBrowserTestBed();
  beforeAll(async () => {
    const { t } = rig;
    worker = createWorker({
      database: t.ctx.database,
      log: t.ctx.log,
      queues: dripQueues(t.ctx),
      pollMs: 100,
      leaseMs: 30_000,
    });
    t.ctx.wake = (queue) => worker.nudge(queue);
    worker.start();
  });
  afterAll(async () => worker?.stop(2000));

  it('draws a drip, starts it, shows the figures per node, and pauses it', async () => {
    const { t, a, browser, base } = rig;
    const cid = a.account.customer_id;
    const [welcome, engaged, nudge] = [
      await storeMailing(t, cid, 'Welcome to the clinic'),
      await storeMailing(t, cid, 'Your next visit'),
      await storeMailing(t, cid, 'We miss you'),
    ];
    const list = await createList(t.ctx, cid, 'New patients');
    const drip = await createDrip(t.ctx, cid, {
      name: 'Onboarding',
      subscription_list_id: list.id,
      drip_campaign_nodes: branchingGraph(welcome, engaged, nudge),
    });
    const dripKey = await keyOf(t, 'drip_campaigns', drip.id);
    const editor = await createTestUser(t, cid, 'editor');
    const page = await signedInPage(browser, base, editor.email);
    await page.getByRole('link', { name: 'Campaigns' }).click();
    await page.getByRole('link', { name: 'Drip campaigns' }).click();
    await checkPage(page, 'campaigns-drips');
    await page.getByRole('link', { name: 'Onboarding' }).click();
    expect(await page.locator('svg.drip-graph g.drip-node').count()).toBe(7);
    expect(await page.locator('svg.drip-graph path.drip-edge').count()).toBe(7);
    expect(await page.locator('svg.drip-graph .drip-branch').allTextContents()).toEqual(['yes', 'no']);
    expect(await page.locator('[data-field="state"]').textContent()).toBe('Draft (not started)');
    await checkPage(page, 'campaigns-drip-draft');

    await page.getByRole('button', { name: 'Start' }).click();
    await page.getByText('The drip is running.').waitFor();
    expect(await page.locator('[data-field="state"]').textContent()).toBe('Active');

    // Two people join the list after the start; the enrollment pass takes them in and the worker mails the welcome.
    for (const email of ['ana@example.org', 'bo@example.org'])
      await createSubscriber(t.ctx, cid, { email }, list.id);
    await enrollNew(t.ctx, Date.now() + 1000);
    await waitFor(
      async () => {
        const r = await t.ctx.database.db
          .selectFrom('drip_enrollments')
          .select('node_id')
          .where('drip_campaign_id', '=', dripKey)
          .execute();
        return r.length === 2 && r.every((e) => e.node_id === 'check');
      },
      15_000,
      50,
      'both enrollments waiting before the condition',
    );
    await page.reload();
    const row = (step: string) => page.getByRole('row', { name: new RegExp(`^${step}`) });
    expect(
      await row('Email: Welcome to the clinic').locator('td[data-label="Emails sent"]').textContent(),
    ).toBe('2');
    expect(await row('Opened the last email?').locator('td[data-label="Here now"]').textContent()).toBe('2');
    expect(await page.locator('[data-field="enrolled"]').textContent()).toBe('2');
    await expect
      .poll(() => page.locator('svg.drip-graph g.drip-condition .drip-counts').textContent())
      .toBe('2 here');
    await checkPage(page, 'campaigns-drip');
    await expectNoSidewaysScroll(page, 'the drip page');

    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByText('The drip is paused.').waitFor();
    expect(await page.locator('[data-field="state"]').textContent()).toBe('Paused');
    await page.getByRole('button', { name: 'Resume' }).waitFor();
  }, 120_000);
});
