/**
 * The campaign history the analytics tests read: two accounts, mailings, sends that have and have not started, deliveries
 * with opens, clicks, bounces and unsubscribes, and a drip email. Counters are set as the pipeline would leave them.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/types.ts';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { marketingClient, uuidOf } from '../marketing.test-support.ts';
import { seedClicks, seedDelivery, seedMailing, seedSend, seedSubscriber } from './analytics.test-support.ts';

/** Ids of what the scenario wrote, as the API shows them (strings). */
export interface Scenario {
  springMailing: number;
  fluMailing: number;
  /** Spring checkup to Newsletter: four deliveries, three links (the first and last to the same URL). */
  springSend: number;
  /** Flu shots to Patients: one delivery. */
  fluSend: number;
  /** Spring checkup scheduled again, not started. */
  scheduledSend: number;
  /** The other account's send. */
  foreignSend: number;
  /** The UUIDs of the sends and mailings, which are read as well as their integer ids. */
  uuids: { springMailing: string; springSend: string; fluSend: string; foreignSend: string };
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
  /** The custom field type ids (UUIDs) of `Clinic` and `Plan`. */
  fields: { clinic: string; plan: string };
}

export const URL_A = 'https://clinic.example/book';
export const URL_B = 'https://clinic.example/hours';

/** Writes the scenario for `a` (and a little for `other`). */
export async function seedScenario(t: TestApp, a: TestAccount, other: TestAccount): Promise<Scenario> {
  const db = t.ctx.database.db;
  const cid = a.account.customer_id;
  const people = await seedPeople(db, cid);
  const campaigns = await seedCampaigns(db, cid);
  const deliveries = await seedDeliveries(db, cid, people, campaigns);
  const clicks = await seedClickHistory(db, campaigns, deliveries);
  const foreign = await seedForeign(db, other.account.customer_id);
  const types = await db
    .selectFrom('subscriber_custom_field_types')
    .select(['name', 'uuid'])
    .where('customer_id', '=', cid)
    .execute();
  const field = (name: string) => types.find((t) => t.name === name)!.uuid;
  const fields = { clinic: field('Clinic'), plan: field('Plan') };
  return scenarioIds(db, { people, campaigns, deliveries, clicks, foreign, fields });
}

/** The four subscribers of the account, two with custom fields. */
async function seedPeople(db: Kysely<DB>, cid: number) {
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
  return { alice, bob, carol, dave };
}

/** Two mailings and three sends: Spring checkup to Newsletter, Flu shots to Patients, and Spring checkup scheduled. */
async function seedCampaigns(db: Kysely<DB>, cid: number) {
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
  return { spring, flu, springSend, fluSend, scheduledSend };
}

type People = Awaited<ReturnType<typeof seedPeople>>;
type Campaigns = Awaited<ReturnType<typeof seedCampaigns>>;
type Deliveries = Awaited<ReturnType<typeof seedDeliveries>>;

/** The deliveries of the two sends and of a drip email, with their opens, failure and unsubscribes. */
async function seedDeliveries(db: Kysely<DB>, cid: number, p: People, c: Campaigns) {
  const deliver = (
    sendId: number | null,
    mailingId: number,
    subscriberId: number,
    email: string,
    extra = {},
  ) => seedDelivery(db, cid, { sendId, mailingId, subscriberId, email, ...extra });
  const dAlice = await deliver(c.springSend, c.spring, p.alice, 'alice@example.org', {
    created_at: 11_001,
    first_opened_at: 12_000,
  });
  const dBob = await deliver(c.springSend, c.spring, p.bob, 'bob@example.org', {
    created_at: 11_002,
    first_opened_at: 13_000,
    unsubscribed_at: 13_500,
  });
  const dCarol = await deliver(c.springSend, c.spring, p.carol, 'carol@example.org', { created_at: 11_003 });
  const dDave = await deliver(c.springSend, c.spring, p.dave, 'dave@example.org', {
    created_at: 11_004,
    status: 'failed',
  });
  const dCarolFlu = await deliver(c.fluSend, c.flu, p.carol, 'carol@example.org', {
    created_at: 21_001,
    first_opened_at: 22_000,
    global_unsubscribed_at: 22_500,
  });
  const dDrip = await deliver(null, c.flu, p.alice, 'alice@example.org', {
    created_at: 40_000,
    first_opened_at: 40_500,
  });
  return { dAlice, dBob, dCarol, dDave, dCarolFlu, dDrip };
}

/** The clicks on the deliveries' links. */
async function seedClickHistory(db: Kysely<DB>, c: Campaigns, d: Deliveries) {
  const click = (
    deliveryId: number,
    sendId: number | null,
    htmlId: number,
    targetUrl: string,
    times: number,
    at: number,
  ) => seedClicks(db, { deliveryId, sendId, htmlId, targetUrl, times, at });
  const aliceFirst = await click(d.dAlice, c.springSend, 0, URL_A, 3, 12_100);
  const aliceSecond = await click(d.dAlice, c.springSend, 1, URL_B, 1, 12_200);
  const bobFirst = await click(d.dBob, c.springSend, 0, URL_A, 1, 13_100);
  const carolFlu = await click(d.dCarolFlu, c.fluSend, 0, URL_B, 2, 22_100);
  const drip = await click(d.dDrip, null, 0, URL_A, 1, 40_600);
  return { aliceFirst, aliceSecond, bobFirst, carolFlu, drip };
}

/** The other account's mailing, send, subscriber, delivery and click. */
async function seedForeign(db: Kysely<DB>, ocid: number) {
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
  return { foreignSend, foreign };
}

/** What the scenario wrote, by its numeric ids. */
interface Seeded {
  people: People;
  campaigns: Campaigns;
  deliveries: Deliveries;
  clicks: Awaited<ReturnType<typeof seedClickHistory>>;
  foreign: Awaited<ReturnType<typeof seedForeign>>;
  fields: { clinic: string; plan: string };
}

/**
 * The scenario's ids as the API shows them: integers of mailings and sends, UUIDs of deliveries and subscribers, other
 * ids as text.
 */
async function scenarioIds(db: Kysely<DB>, x: Seeded): Promise<Scenario> {
  const { people, campaigns: c, deliveries: d, clicks } = x;
  const s = String;
  const m = (id: number) => uuidOf(db, 'campaign_mailings', id);
  const send = (id: number) => uuidOf(db, 'campaign_mailing_sends', id);
  const dv = (id: number) => uuidOf(db, 'marketing_deliveries', id);
  const p = (id: number) => uuidOf(db, 'subscribers', id);
  return {
    springMailing: c.spring,
    fluMailing: c.flu,
    springSend: c.springSend,
    fluSend: c.fluSend,
    scheduledSend: c.scheduledSend,
    foreignSend: x.foreign.foreignSend,
    uuids: {
      springMailing: await m(c.spring),
      springSend: await send(c.springSend),
      fluSend: await send(c.fluSend),
      foreignSend: await send(x.foreign.foreignSend),
    },
    deliveries: {
      alice: await dv(d.dAlice),
      bob: await dv(d.dBob),
      carol: await dv(d.dCarol),
      dave: await dv(d.dDave),
      carolFlu: await dv(d.dCarolFlu),
      drip: await dv(d.dDrip),
      foreign: await dv(x.foreign.foreign),
    },
    subscribers: {
      alice: await p(people.alice),
      bob: await p(people.bob),
      carol: await p(people.carol),
      dave: await p(people.dave),
    },
    clicks: {
      aliceFirst: s(clicks.aliceFirst),
      aliceSecond: s(clicks.aliceSecond),
      bobFirst: s(clicks.bobFirst),
      carolFlu: s(clicks.carolFlu),
      drip: s(clicks.drip),
    },
    fields: x.fields,
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
  const ids = async (path: string): Promise<(string | number)[]> =>
    ((await data(path)) as { id: string | number }[]).map((r) => r.id);
  const refused = async (path: string, status: number, code: string) => {
    const res = await client()('GET', path);
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json().error_code).toBe(code);
    return res.json() as { fields: { field: string }[] };
  };
  return { data, ids, refused };
}
