/**
 * A drip end to end: its emails delivered by the marketing delivery lane through a real STARTTLS SMTP sink, an open
 * through the real pixel URL found in the received mail, and the condition two days later (on the injected clock)
 * choosing the next email from that open.
 */
import { afterAll, expect, it } from 'vitest';
import { createWorker, type Worker } from '../../jobs/worker.ts';
import { queueHandlers } from '../../app/workers.ts';
import { waitFor } from '../../test/wait.ts';
import { makeList, makeSubscriber } from '../marketing.test-support.ts';
import { makeMailing } from '../mailings/mailings.test-support.ts';
import { sinkTestBed } from '../campaigns/sends.test-support.ts';
import { DRIP_STEP_QUEUE, dripQueues } from './drips.engine.ts';
import { dripTasks } from './drips.enroll.ts';
import { branchingGraph, makeDrip } from './drips.test-support.ts';

const { t, acct, sink, call } = sinkTestBed();
let worker: Worker | undefined;
const clock = { now: Date.now() };

afterAll(() => worker?.stop(2000));

/** Every queue of the worker role, the drip steps on the test's clock. */
function startWorker(): Worker {
  const w = createWorker({
    database: t.ctx.database,
    log: t.ctx.log,
    queues: { ...queueHandlers(t.ctx), ...dripQueues(t.ctx, () => clock.now) },
    pollMs: 100,
    leaseMs: 30_000,
    now: () => clock.now,
  });
  t.ctx.wake = (queue) => w.nudge(queue);
  w.start();
  return w;
}

const subjectsTo = async (address: string) =>
  Promise.all(
    sink.received.filter((m) => m.to.includes(address)).map(async (m) => (await m.parsed()).subject),
  );

it('mails the welcome, then the follow-up the open chose, through real SMTP', async () => {
  const from = { from_email: `news@${acct.domain}`, from_name: 'Clinic News' };
  const welcome = await makeMailing(call, 'Welcome to the clinic', {
    ...from,
    html_part: '<p>Welcome {{first_name}}</p>',
  });
  const thanks = await makeMailing(call, 'Thanks for reading', from);
  const missed = await makeMailing(call, 'Did you miss this?', from);
  const list = await makeList(call, 'New patients');
  const drip = await makeDrip(call, {
    name: 'Onboarding',
    subscription_list_id: list,
    drip_campaign_nodes: branchingGraph(welcome, thanks, missed),
  });
  expect((await call('POST', `/drip_campaigns/${drip}/start`)).statusCode).toBe(200);
  await makeSubscriber(call, 'ann@patients.example', { first_name: 'Ann' }, list);
  await makeSubscriber(call, 'bob@patients.example', { first_name: 'Bob' }, list);
  worker = startWorker();

  await dripTasks(t.ctx)[0]!.run(clock.now);
  await waitFor(() => sink.received.length >= 2, 10_000, 20, 'both welcome emails');
  const annWelcome = await sink.received.find((m) => m.to.includes('ann@patients.example'))!.parsed();
  expect(annWelcome.subject).toBe('Welcome to the clinic');
  const pixel = /src="([^"]*\/t\/m\/o\/[^"]+)"/.exec(String(annWelcome.html))![1]!;
  expect((await t.app.inject({ method: 'GET', url: new URL(pixel).pathname })).statusCode).toBe(200);

  // Moving the clock two days lapses every lease on it: first let the welcome deliveries finish, or their rows would
  // be claimed again while still running.
  await waitFor(
    async () =>
      (await t.ctx.database.db.selectFrom('jobs').select('id').where('state', '=', 'running').execute())
        .length === 0,
    10_000,
    20,
    'the welcome deliveries finished',
  );
  clock.now += 2 * 86_400_000;
  worker.nudge(DRIP_STEP_QUEUE);

  await waitFor(() => sink.received.length >= 4, 10_000, 20, 'both follow-up emails');
  expect(await subjectsTo('ann@patients.example')).toEqual(['Welcome to the clinic', 'Thanks for reading']);
  expect(await subjectsTo('bob@patients.example')).toEqual(['Welcome to the clinic', 'Did you miss this?']);
  await waitFor(
    async () =>
      (await call('GET', `/drip_campaigns/${drip}`)).json().data.attributes.subscriber_completed_count === 2,
    5000,
    20,
    'both enrollments completed',
  );
  expect((await call('GET', `/drip_campaigns/${drip}`)).json().data.attributes.subscriber_count).toBe(2);
});
