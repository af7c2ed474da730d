/** Test helpers for drip campaigns: mailings stored for an account, graphs, and drips created through the API. */
import type { TestApp } from '../../test/harness.ts';
import { keyOf, uuidOf, type marketingClient } from '../marketing.test-support.ts';

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
