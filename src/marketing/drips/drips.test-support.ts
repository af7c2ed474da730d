/** Test helpers for drip campaigns: mailings stored for an account, graphs, and drips created through the API. */
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { waitFor } from '../../test/wait.ts';
import { createWorker, type Worker } from '../../jobs/worker.ts';
import { keyOf, makeList, marketingClient, uuidOf } from '../marketing.test-support.ts';
import { DRIP_STEP_QUEUE, dripQueues } from './drips.engine.ts';
import { dripTasks } from './drips.enroll.ts';

type Call = ReturnType<typeof marketingClient>;

/** Stores a campaign mailing of the account (the content a drip's email node names) and returns its id (UUID). */
export async function storeMailing(t: TestApp, customerId: number, subject: string): Promise<string> {
  const now = Date.now();
  const row = await t.ctx.database.db
    .insertInto('campaign_mailings')
    .values({
      customer_id: customerId,
      subject,
      subject_key: subject.toLowerCase(),
      html_part: `<p>${subject}</p>`,
      text_part: subject,
      template_type: 'html',
      from_email: null,
      from_name: null,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return uuidOf(t.ctx.database.db, 'campaign_mailings', row.id);
}

/** The graph start → email A → wait → condition (opened?) → yes: email B / no: email C → end, as drip_campaign_nodes. */
export function branchingGraph(
  a: string,
  b: string,
  c: string,
  wait: unknown = { days: 2 },
  condition = 'opened',
): string {
  return JSON.stringify({
    nodes: [
      { id: 'start', type: 'start', trigger: 'subscription' },
      { id: 'welcome', type: 'email', campaign_mailing_id: a },
      { id: 'pause', type: 'wait', duration: wait },
      { id: 'check', type: 'condition', condition },
      { id: 'engaged', type: 'email', campaign_mailing_id: b },
      { id: 'nudge', type: 'email', campaign_mailing_id: c },
      { id: 'end', type: 'end' },
    ],
    edges: [
      { from: 'start', to: 'welcome' },
      { from: 'welcome', to: 'pause' },
      { from: 'pause', to: 'check' },
      { from: 'check', to: 'engaged', branch: 'yes' },
      { from: 'check', to: 'nudge', branch: 'no' },
      { from: 'engaged', to: 'end' },
      { from: 'nudge', to: 'end' },
    ],
  });
}

/** Creates a drip through the API and returns its id; throws with the body when the create fails. */
export async function makeDrip(call: Call, fields: Record<string, unknown>): Promise<string> {
  const res = await call('POST', '/drip_campaigns', { drip_campaign: fields });
  if (res.statusCode !== 200) throw new Error(`drip create failed: ${res.statusCode} ${res.body}`);
  return res.json().data.id as string;
}

/** The drip deliveries of a subscriber: [node, mailing id] in creation order. */
export async function dripDeliveriesOf(t: TestApp, subscriberId: string): Promise<[string, string][]> {
  const rows = await t.ctx.database.db
    .selectFrom('marketing_deliveries')
    .innerJoin('campaign_mailings as m', 'm.id', 'marketing_deliveries.campaign_mailing_id')
    .select(['drip_node_id', 'm.uuid as mailing'])
    .where('subscriber_id', '=', await keyOf(t, 'subscribers', subscriberId))
    .where('drip_enrollment_id', 'is not', null)
    .orderBy('marketing_deliveries.id')
    .execute();
  return rows.map((r) => [r.drip_node_id!, r.mailing]);
}

/** What a test of running drips uses: filled in place before the file's tests, so they may name it at the top level. */
export interface DripRunTestBed {
  t: TestApp;
  a: TestAccount;
  call: Call;
  /** The stored mailings A, B and C of the account. */
  mailings: string[];
  /** The test's clock, set to now before each test. */
  clock: { now: number };
  /** The worker `startWorker` started in this test, if any. */
  currentWorker(): Worker | undefined;
  /** A real worker over the drip queues, on the test's clock; stopped after the test. */
  startWorker(): void;
  /** Moves the clock on and wakes the step loop. */
  advance(ms: number): void;
  /** The enrollment pass the scheduler leader runs, at the test's clock. */
  enrollPass(): Promise<void>;
  /** The enrollment row of a subscriber in a drip. */
  enrollment(dripId: string, subscriberId: string): ReturnType<typeof enrollmentOf>;
  /** Waits until the enrollment is at the node and in the state given. */
  waitForEnrollment(
    dripId: string,
    subscriberId: string,
    what: { node?: string; state?: string },
  ): ReturnType<typeof enrollmentOf>;
  /** The drip deliveries of a subscriber (see `dripDeliveriesOf`). */
  deliveriesOf(subscriberId: string): Promise<[string, string][]>;
  /** A started drip on a new list, with the branching graph. */
  startedDrip(condition?: string): Promise<{ drip: string; list: string }>;
}

async function enrollmentOf(t: TestApp, dripId: string, subscriberId: string) {
  return t.ctx.database.db
    .selectFrom('drip_enrollments')
    .selectAll()
    .where('drip_campaign_id', '=', await keyOf(t, 'drip_campaigns', dripId))
    .where('subscriber_id', '=', await keyOf(t, 'subscribers', subscriberId))
    .executeTakeFirst();
}

/** Registers hooks for a file of running drips: an app, account and mailings A/B/C, a fresh clock and worker per test. */
export function dripRunTestBed(): DripRunTestBed {
  const t = {} as TestApp;
  const a = {} as TestAccount;
  let client: Call | undefined;
  const mailings: string[] = [];
  const clock = { now: Date.now() };
  let worker: Worker | undefined;
  const call: Call = (method, path, payload) => client!(method, path, payload);

  beforeAll(async () => {
    Object.assign(t, await createTestApp({ config: { formsSubmitPerMinute: 0 } }));
    Object.assign(a, await t.createAccount());
    client = marketingClient(t, a);
    mailings.length = 0;
    for (const subject of ['A', 'B', 'C'])
      mailings.push(await storeMailing(t, a.account.customer_id, subject));
  });
  afterAll(() => t.close());
  beforeEach(() => {
    clock.now = Date.now();
  });
  afterEach(async () => {
    await worker?.stop(5000);
    worker = undefined;
  });

  const enrollment = (dripId: string, subscriberId: string) => enrollmentOf(t, dripId, subscriberId);
  return {
    t,
    a,
    call,
    mailings,
    clock,
    currentWorker: () => worker,
    startWorker() {
      worker = createWorker({
        database: t.ctx.database,
        log: t.ctx.log,
        queues: dripQueues(t.ctx, () => clock.now),
        pollMs: 100,
        leaseMs: 30_000,
        now: () => clock.now,
      });
      t.ctx.wake = (queue) => worker?.nudge(queue);
      worker.start();
    },
    advance(ms) {
      clock.now += ms;
      worker?.nudge(DRIP_STEP_QUEUE);
    },
    async enrollPass() {
      await dripTasks(t.ctx)[0]!.run(clock.now);
    },
    enrollment,
    waitForEnrollment: (dripId, subscriberId, what) =>
      waitFor(
        async () => {
          const e = await enrollment(dripId, subscriberId);
          return e &&
            (what.node === undefined || e.node_id === what.node) &&
            (what.state === undefined || e.state === what.state)
            ? e
            : undefined;
        },
        5000,
        10,
        `enrollment ${JSON.stringify(what)}`,
      ),
    deliveriesOf: (subscriberId) => dripDeliveriesOf(t, subscriberId),
    async startedDrip(condition = 'opened') {
      const list = await makeList(call, `List ${Math.random()}`);
      const drip = await makeDrip(call, {
        name: `Drip ${Math.random()}`,
        subscription_list_id: list,
        drip_campaign_nodes: branchingGraph(mailings[0]!, mailings[1]!, mailings[2]!, { days: 2 }, condition),
      });
      expect((await call('POST', `/drip_campaigns/${drip}/start`)).statusCode).toBe(200);
      return { drip, list };
    },
  };
}

/** What a test of the drip API uses: filled in place before the file's tests; `list` and `graph` are read once they run. */
export interface DripApiTestBed {
  t: TestApp;
  a: TestAccount;
  call: Call;
  /** The stored mailings A, B and C of the account. */
  mailings: string[];
  /** The list 'Welcome list', and the branching graph over mailings A, B and C. */
  d: { list: string; graph: string };
  /** Replaces one node of the branching graph, or removes it when `node` is null. */
  graphWith(id: string, node: Record<string, unknown> | null, edges?: unknown[]): string;
}

/** Registers hooks that build an app, an account, its list and mailings, and the branching graph over them. */
export function dripApiTestBed(): DripApiTestBed {
  const t = {} as TestApp;
  const a = {} as TestAccount;
  let client: Call | undefined;
  const call: Call = (method, path, payload) => client!(method, path, payload);
  const mailings: string[] = [];
  const d = { list: '', graph: '' };
  beforeAll(async () => {
    Object.assign(t, await createTestApp());
    Object.assign(a, await t.createAccount());
    client = marketingClient(t, a);
    d.list = await makeList(call, 'Welcome list');
    mailings.push(
      await storeMailing(t, a.account.customer_id, 'A'),
      await storeMailing(t, a.account.customer_id, 'B'),
      await storeMailing(t, a.account.customer_id, 'C'),
    );
    d.graph = branchingGraph(mailings[0]!, mailings[1]!, mailings[2]!);
  });
  afterAll(() => t.close());
  return {
    t,
    a,
    call,
    mailings,
    d,
    graphWith(id, node, edges) {
      const g = JSON.parse(d.graph) as { nodes: { id: string }[]; edges: unknown[] };
      g.nodes =
        node === null
          ? g.nodes.filter((n) => n.id !== id)
          : (g.nodes.map((n) => (n.id === id ? node : n)) as { id: string }[]);
      if (edges) g.edges = edges;
      return JSON.stringify(g);
    },
  };
}
