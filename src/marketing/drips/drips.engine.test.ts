/**
 * Drips running: enrollment by the scheduler task, steps on a real worker, waits and conditions measured by an
 * injected clock (days pass without sleeping), pause and resume, unsubscribes, and re-runs of a step row.
 */
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../test/wait.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { createForm, GOOD } from '../../forms/forms.test-support.ts';
import { handleSubmitted } from '../../forms/forms.worker.ts';
import { addRespondentToList } from '../subscribers/form-respondents.ts';
import { keyOf, makeList, makeSubscriber } from '../marketing.test-support.ts';
import { branchingGraph, dripRunTestBed, makeDrip } from './drips.test-support.ts';
import { pipelineMetrics } from '../../http/pipeline-metrics.ts';
import { setListOptIn } from '../optin/optin.service.ts';
import { createTestUser, signInClient } from '../../console/console.test-support.ts';

const DAY = 86_400_000;

const {
  t,
  a,
  call,
  mailings,
  clock,
  startWorker,
  advance,
  enrollPass,
  enrollment,
  waitForEnrollment,
  deliveriesOf,
  startedDrip,
} = dripRunTestBed();

async function counters(dripId: string) {
  const attrs = (await call('GET', `/drip_campaigns/${dripId}`)).json().data.attributes;
  return [attrs.subscriber_count, attrs.subscriber_completed_count];
}

describe('a drip start → email → wait 2 days → opened? → B / C → end', () => {
  it('sends A at once, B to the subscriber who opened and C to the one who did not, two days later, then completes both', async () => {
    const { drip, list } = await startedDrip();
    const acceptedBefore = await acceptedOnMarketingLane();
    // Joining through the subscribe operation counts as joining the list too.
    const third = await makeSubscriber(call, `third-${Date.now()}@example.org`);
    await call('POST', `/subscribers/${third}/subscribe`, { subscription_list_id: list });
    const opener = await makeSubscriber(call, `opener-${Date.now()}@example.org`, {}, list);
    const ignorer = await makeSubscriber(call, `ignorer-${Date.now()}@example.org`, {}, list);
    startWorker();

    await enrollPass();
    await waitForEnrollment(drip, opener, { node: 'check' });
    await waitForEnrollment(drip, ignorer, { node: 'check' });
    expect(await deliveriesOf(opener)).toEqual([['welcome', mailings[0]]]);
    expect(await deliveriesOf(ignorer)).toEqual([['welcome', mailings[0]]]);
    expect(await counters(drip)).toEqual([3, 0]);

    // The opener's welcome is opened (the tracking pixel sets first_opened_at).
    await t.ctx.database.db
      .updateTable('marketing_deliveries')
      .set({ first_opened_at: clock.now, open_count: 1 })
      .where('subscriber_id', '=', await keyOf(t, 'subscribers', opener))
      .where('drip_node_id', '=', 'welcome')
      .execute();
    advance(2 * DAY - 60_000);
    await enrollPass();
    await new Promise((r) => setTimeout(r, 150));
    expect((await enrollment(drip, opener))!.node_id).toBe('check');

    advance(60_000);
    await waitForEnrollment(drip, opener, { state: 'completed' });
    await waitForEnrollment(drip, ignorer, { state: 'completed' });
    await waitForEnrollment(drip, third, { state: 'completed' });
    expect(await deliveriesOf(opener)).toEqual([
      ['welcome', mailings[0]],
      ['engaged', mailings[1]],
    ]);
    expect(await deliveriesOf(ignorer)).toEqual([
      ['welcome', mailings[0]],
      ['nudge', mailings[2]],
    ]);
    expect(await counters(drip)).toEqual([3, 3]);
    // Each of the six emails was counted once as accepted on the marketing lane. A step counts once its commit
    // returns, which can be a moment after other connections see it; so wait for the sixth, then check no more came.
    const counted = async () => (await acceptedOnMarketingLane()) - acceptedBefore;
    await waitFor(async () => (await counted()) >= 6, 5000, 10, 'six emails counted as accepted');
    await sleep(100);
    expect(await counted()).toBe(6);
  });

  it('enrolls only subscribers who join after the start, each once', async () => {
    const list = await makeList(call, 'Joined before');
    const early = await makeSubscriber(call, `before-${Date.now()}@example.org`, {}, list);
    const drip = await makeDrip(call, {
      name: 'Late start',
      subscription_list_id: list,
      drip_campaign_nodes: branchingGraph(mailings[0]!, mailings[1]!, mailings[2]!),
    });
    await call('POST', `/drip_campaigns/${drip}/start`);
    const late = await makeSubscriber(call, `after-${Date.now()}@example.org`, {}, list);

    await enrollPass();
    await enrollPass();

    expect(await enrollment(drip, early)).toBeUndefined();
    expect(await enrollment(drip, late)).toMatchObject({ node_id: 'start', state: 'active' });
    expect(await counters(drip)).toEqual([1, 0]);
  });

  it('follows the clicked condition by click_count', async () => {
    const { drip, list } = await startedDrip('clicked');
    const clicker = await makeSubscriber(call, `clicker-${Date.now()}@example.org`, {}, list);
    startWorker();
    await enrollPass();
    await waitForEnrollment(drip, clicker, { node: 'check' });
    await t.ctx.database.db
      .updateTable('marketing_deliveries')
      .set({ click_count: 2 })
      .where('subscriber_id', '=', await keyOf(t, 'subscribers', clicker))
      .execute();

    advance(2 * DAY);

    await waitForEnrollment(drip, clicker, { state: 'completed' });
    expect((await deliveriesOf(clicker)).map(([node]) => node)).toEqual(['welcome', 'engaged']);
  });
});

describe('pause and start', () => {
  it('parks an enrollment whose step comes due while paused, and resumes it on start', async () => {
    const { drip, list } = await startedDrip();
    const sub = await makeSubscriber(call, `paused-${Date.now()}@example.org`, {}, list);
    startWorker();
    await enrollPass();
    await waitForEnrollment(drip, sub, { node: 'check' });

    expect((await call('POST', `/drip_campaigns/${drip}/pause`)).statusCode).toBe(200);
    advance(3 * DAY);
    await waitForEnrollment(drip, sub, { node: 'check', state: 'parked' });
    await new Promise((r) => setTimeout(r, 100));
    expect(await deliveriesOf(sub)).toEqual([['welcome', mailings[0]]]);

    const res = await call('POST', `/drip_campaigns/${drip}/start`);
    expect(res.statusCode).toBe(200);
    await waitForEnrollment(drip, sub, { state: 'completed' });
    expect(await deliveriesOf(sub)).toEqual([
      ['welcome', mailings[0]],
      ['nudge', mailings[2]],
    ]);
    expect(await counters(drip)).toEqual([1, 1]);
  });

  it('enrolls nobody while paused and catches up those who joined meanwhile on start', async () => {
    const { drip, list } = await startedDrip();
    await call('POST', `/drip_campaigns/${drip}/pause`);
    const sub = await makeSubscriber(call, `meanwhile-${Date.now()}@example.org`, {}, list);
    await enrollPass();
    expect(await enrollment(drip, sub)).toBeUndefined();

    await call('POST', `/drip_campaigns/${drip}/start`);
    await enrollPass();

    expect(await enrollment(drip, sub)).toMatchObject({ state: 'active' });
  });

  it('stops enrollments waiting on a node that a paused edit removed', async () => {
    const { drip, list } = await startedDrip();
    const sub = await makeSubscriber(call, `removed-${Date.now()}@example.org`, {}, list);
    startWorker();
    await enrollPass();
    await waitForEnrollment(drip, sub, { node: 'check' });
    await call('POST', `/drip_campaigns/${drip}/pause`);
    const g = JSON.parse(branchingGraph(mailings[0]!, mailings[1]!, mailings[2]!));
    g.nodes = g.nodes.filter(
      (n: { id: string; type: string }) => n.type !== 'condition' && n.id !== 'engaged' && n.id !== 'nudge',
    );
    g.edges = [
      { from: 'start', to: 'welcome' },
      { from: 'welcome', to: 'pause' },
      { from: 'pause', to: 'end' },
    ];

    expect(
      (
        await call('PUT', `/drip_campaigns/${drip}`, {
          drip_campaign: { drip_campaign_nodes: JSON.stringify(g) },
        })
      ).statusCode,
    ).toBe(200);

    expect(await enrollment(drip, sub)).toMatchObject({ state: 'stopped', stop_reason: 'node_removed' });
  });
});

describe('unsubscribes', () => {
  it('enrolls a member of a double opt-in list when they confirm, not when they sign up', async () => {
    const { drip, list } = await startedDrip();
    await setListOptIn(t.ctx, a.account.customer_id, list, {
      doubleOptIn: true,
      fromEmail: `news@${a.domain}`,
      public: false,
    });
    const pending = await makeSubscriber(call, `pending-${Date.now()}@example.org`, {}, list);
    startWorker();
    await enrollPass();
    expect(await enrollment(drip, pending)).toBeUndefined();

    // Long after signing up (past the pass's look-back), the member confirms: what the confirmation link writes.
    advance(DAY);
    await t.ctx.database.db
      .updateTable('subscription_list_members')
      .set({ confirmed_at: clock.now })
      .where('list_id', '=', await keyOf(t, 'subscription_lists', list))
      .where('subscriber_id', '=', await keyOf(t, 'subscribers', pending))
      .execute();
    await enrollPass();
    await waitForEnrollment(drip, pending, { node: 'check', state: 'active' });
    expect(await deliveriesOf(pending)).toEqual([['welcome', mailings[0]]]);
  });

  it('does not enroll an unsubscribed member and stops an enrolled one who unsubscribes', async () => {
    const { drip, list } = await startedDrip();
    const leaving = await makeSubscriber(call, `leaving-${Date.now()}@example.org`, {}, list);
    const gone = await makeSubscriber(call, `gone-${Date.now()}@example.org`, {}, list);
    await call('POST', `/subscribers/${gone}/unsubscribe`, {});
    startWorker();
    await enrollPass();
    await waitForEnrollment(drip, leaving, { node: 'check' });
    expect(await enrollment(drip, gone)).toBeUndefined();

    await call('POST', `/subscribers/${leaving}/unsubscribe`, { subscription_list_id: list });
    advance(2 * DAY);

    await waitForEnrollment(drip, leaving, { state: 'stopped' });
    expect(await deliveriesOf(leaving)).toEqual([['welcome', mailings[0]]]);
    expect(await counters(drip)).toEqual([1, 0]);
    // The drip's console page says why.
    const viewer = await signInClient(
      t.app,
      (await createTestUser(t, a.account.customer_id, 'viewer')).email,
    );
    const page = (await viewer.get(`/console/campaigns/drips/${drip}`)).body;
    expect(page).toMatch(/data-field="stopped">1</);
    expect(page).toContain('1 unsubscribed from the list or from all mail');
  });
});

describe('form_submission trigger', () => {
  it("enrolls a respondent once the form's worker made them a subscriber", async () => {
    const formList = await makeList(call, 'Form respondents');
    const form = await createForm(t.app, a.auth, { type: 'marketing_form', subscription_list_id: formList });
    const g = JSON.parse(branchingGraph(mailings[0]!, mailings[1]!, mailings[2]!));
    g.nodes[0] = { id: 'start', type: 'start', trigger: 'form_submission', form_id: form };
    const drip = await makeDrip(call, { name: 'Respondents', drip_campaign_nodes: JSON.stringify(g) });
    await call('POST', `/drip_campaigns/${drip}/start`);
    const email = `respondent-${Date.now()}@example.org`;
    const submitted = await t.app.inject({
      method: 'POST',
      url: `/v1/forms/api/forms/${form}/submissions`,
      payload: { form_data: { ...GOOD, email } },
    });
    expect(submitted.statusCode).toBe(201);

    await enrollPass();
    expect((await counters(drip))[0]).toBe(0);
    const job = await t.ctx.database.db
      .selectFrom('jobs')
      .select('payload')
      .where('queue', '=', 'forms.submitted')
      .where('payload', 'like', `%${form}%`)
      .executeTakeFirstOrThrow();
    await handleSubmitted(t.ctx, JSON.parse(job.payload), addRespondentToList);
    await enrollPass();

    const sub = (await call('GET', `/subscribers?search=respondent`))
      .json()
      .data.find((s: { attributes: { email: string } }) => s.attributes.email === email);
    expect(await enrollment(drip, sub.id)).toMatchObject({ state: 'active', node_id: 'start' });
    expect(await counters(drip)).toEqual([1, 0]);
  });
});

/** The accepted counter of the marketing lane in this process's pipeline metrics. */
async function acceptedOnMarketingLane(): Promise<number> {
  const { values } = await pipelineMetrics.accepted.get();
  return values.find((v) => v.labels.lane === 'marketing')?.value ?? 0;
}
