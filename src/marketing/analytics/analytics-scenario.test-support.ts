/**
 * The campaign history the analytics tests read: two accounts, mailings, sends that have and have not started, deliveries
 * with opens, clicks, bounces and unsubscribes, and a drip email. Counters are set as the pipeline would leave them.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { marketingClient, uuidOf } from '../marketing.test-support.ts';
import { seedClicks, seedDelivery, seedMailing, seedSend, seedSubscriber } from './analytics.test-support.ts';

/** Ids of what the scenario wrote, as the API shows them (strings). */
export interface Scenario {
  springMailing: string;
  fluMailing: string;
  /** Spring checkup to Newsletter: four deliveries, three links (the first and last to the same URL). */
  springSend: string;
  /** Flu shots to Patients: one delivery. */
  fluSend: string;
  /** Spring checkup scheduled again, not started. */
  scheduledSend: string;
  /** The other account's send. */
  foreignSend: string;
  deliveries: {
    alice: string;
    bob: string;
    carol: string;
    dave: string;
    carolFlu: string;
    drip: string;
    foreign: string;
  };
  subscribers: { alice: string; bob: string; carol: string; dave: string };
  clicks: { aliceFirst: string; aliceSecond: string; bobFirst: string; carolFlu: string; drip: string };
  /** The custom field type id of `Clinic`. */
  clinicField: string;
}

export const URL_A = 'https://clinic.example/book';
export const URL_B = 'https://clinic.example/hours';

/** Writes the scenario for `a` (and a little for `other`). */
export async function seedScenario(t: TestApp, a: TestAccount, other: TestAccount): Promise<Scenario> {
  const db = t.ctx.database.db;
  const cid = a.account.customer_id;
  const person = (
    email: string,
    first_name: string,
    last_name: string,
    created_at: number,
    fields?: Record<string, string>,
  ) => seedSubscriber(db, cid, { email, first_name, last_name, created_at, ...(fields && { fields }) });
  const alice = await person('alice@example.org', 'Alice', 'Young', 1_000, { Clinic: 'North', Plan: 'Gold' });
  const bob = await person('bob@example.org', 'Bob', 'Smith', 2_000, { Clinic: 'South' });
  const carol = await person('carol@example.org', 'Carol', 'Zeta', 3_000);
  const dave = await person('dave@example.org', 'Dave', 'Adams', 4_000);

  const spring = await seedMailing(db, cid, { subject: 'Spring checkup', created_at: 100 });
  const flu = await seedMailing(db, cid, { subject: 'Flu shots', created_at: 200 });
  const springSend = await seedSend(db, cid, {
    mailingId: spring,
    listName: 'Newsletter',
    created_at: 10_000,
    sent_at: 11_000,
    links: [URL_A, URL_B, URL_A],
    sent_count: 4,
    delivered_count: 3,
    viewed_count: 2,
    clicked_count: 2,
    bounced_count: 1,
    soft_bounced_count: 1,
    hard_bounced_count: 1,
    unsubscribed_count: 1,
    global_unsubscribed_count: 0,
  });
  const fluSend = await seedSend(db, cid, {
    mailingId: flu,
    listName: 'Patients',
    state: 'sending',
    created_at: 20_000,
    sent_at: 21_000,
    links: [URL_B],
    sent_count: 1,
    delivered_count: 1,
    viewed_count: 1,
    clicked_count: 1,
    global_unsubscribed_count: 1,
  });
  const scheduledSend = await seedSend(db, cid, {
    mailingId: spring,
    listName: 'Newsletter',
    state: 'scheduled',
    created_at: 30_000,
    sent_at: null,
  });

  const deliver = (
    sendId: number | null,
    mailingId: number,
    subscriberId: number,
    email: string,
    extra = {},
  ) => seedDelivery(db, cid, { sendId, mailingId, subscriberId, email, ...extra });
  const dAlice = await deliver(springSend, spring, alice, 'alice@example.org', {
    created_at: 11_001,
    first_opened_at: 12_000,
  });
  const dBob = await deliver(springSend, spring, bob, 'bob@example.org', {
    created_at: 11_002,
    first_opened_at: 13_000,
    unsubscribed_at: 13_500,
  });
  const dCarol = await deliver(springSend, spring, carol, 'carol@example.org', { created_at: 11_003 });
  const dDave = await deliver(springSend, spring, dave, 'dave@example.org', {
    created_at: 11_004,
    status: 'failed',
  });
  const dCarolFlu = await deliver(fluSend, flu, carol, 'carol@example.org', {
    created_at: 21_001,
    first_opened_at: 22_000,
    global_unsubscribed_at: 22_500,
  });
  const dDrip = await deliver(null, flu, alice, 'alice@example.org', {
    created_at: 40_000,
    first_opened_at: 40_500,
  });

  const click = (
    deliveryId: number,
    sendId: number | null,
    htmlId: number,
    targetUrl: string,
    times: number,
    at: number,
  ) => seedClicks(db, { deliveryId, sendId, htmlId, targetUrl, times, at });
  const aliceFirst = await click(dAlice, springSend, 0, URL_A, 3, 12_100);
  const aliceSecond = await click(dAlice, springSend, 1, URL_B, 1, 12_200);
  const bobFirst = await click(dBob, springSend, 0, URL_A, 1, 13_100);
  const carolFlu = await click(dCarolFlu, fluSend, 0, URL_B, 2, 22_100);
  const drip = await click(dDrip, null, 0, URL_A, 1, 40_600);

  const ocid = other.account.customer_id;
  const otherMailing = await seedMailing(db, ocid, { subject: 'Elsewhere', created_at: 300 });
  const foreignSend = await seedSend(db, ocid, {
    mailingId: otherMailing,
    listName: 'Theirs',
    links: [URL_A],
    delivered_count: 50,
    clicked_count: 9,
  });
  const otherPerson = await seedSubscriber(db, ocid, { email: 'zed@example.org' });
  const foreign = await seedDelivery(db, ocid, {
    sendId: foreignSend,
    mailingId: otherMailing,
    subscriberId: otherPerson,
    email: 'zed@example.org',
  });
  await seedClicks(db, { deliveryId: foreign, sendId: foreignSend, htmlId: 0, targetUrl: URL_A });

  const clinic = await db
    .selectFrom('subscriber_custom_field_types')
    .select('id')
    .where('customer_id', '=', cid)
    .where('name', '=', 'Clinic')
    .executeTakeFirstOrThrow();
  const s = String;
  const m = (id: number) => uuidOf(db, 'campaign_mailings', id);
  const send = (id: number) => uuidOf(db, 'campaign_mailing_sends', id);
  const d = (id: number) => uuidOf(db, 'marketing_deliveries', id);
  const p = (id: number) => uuidOf(db, 'subscribers', id);
  return {
    springMailing: await m(spring),
    fluMailing: await m(flu),
    springSend: await send(springSend),
    fluSend: await send(fluSend),
    scheduledSend: await send(scheduledSend),
    foreignSend: await send(foreignSend),
    deliveries: {
      alice: await d(dAlice),
      bob: await d(dBob),
      carol: await d(dCarol),
      dave: await d(dDave),
      carolFlu: await d(dCarolFlu),
      drip: await d(dDrip),
      foreign: await d(foreign),
    },
    subscribers: { alice: await p(alice), bob: await p(bob), carol: await p(carol), dave: await p(dave) },
    clicks: {
      aliceFirst: s(aliceFirst),
      aliceSecond: s(aliceSecond),
      bobFirst: s(bobFirst),
      carolFlu: s(carolFlu),
      drip: s(drip),
    },
    clinicField: s(clinic.id),
  };
}

/** A test app with the scenario written for account `a` (and a little for `other`), and a client of `a`. */
export interface ScenarioApp {
  t: TestApp;
  a: TestAccount;
  other: TestAccount;
  s: Scenario;
  call: ReturnType<typeof marketingClient>;
}

/** Builds a test app and writes the scenario; close it with `t.close()`. */
export async function openScenario(): Promise<ScenarioApp> {
  const t = await createTestApp();
  const a = await t.createAccount();
  const other = await t.createAccount();
  return { t, a, other, s: await seedScenario(t, a, other), call: marketingClient(t, a) };
}

/** Registers hooks that open the scenario before the file's tests and close it after; `f` and `s` are filled in place. */
export function scenarioTestBed(): { f: ScenarioApp; s: Scenario } {
  const f = {} as ScenarioApp;
  const s = {} as Scenario;
  beforeAll(async () => {
    const opened = await openScenario();
    Object.assign(s, opened.s);
    Object.assign(f, { ...opened, s });
  });
  afterAll(() => f.t.close());
  return { f, s };
}

/** GET helpers over a client (given late, as tests build it in beforeAll) that check the status of each answer. */
export function readers(client: () => ReturnType<typeof marketingClient>) {
  const data = async (path: string, other = client()) => {
    const res = await other('GET', path);
    expect(res.statusCode, res.body).toBe(200);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return res.json().data as any;
  };
  const ids = async (path: string): Promise<string[]> =>
    ((await data(path)) as { id: string }[]).map((r) => r.id);
  const refused = async (path: string, status: number, code: string) => {
    const res = await client()('GET', path);
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json().error_code).toBe(code);
    return res.json() as { fields: { field: string }[] };
  };
  return { data, ids, refused };
}
