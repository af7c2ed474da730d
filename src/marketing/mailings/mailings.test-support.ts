/** Test helpers for campaign mailings: creating one through the API, and putting a send of it in a state. */
import type { TestApp } from '../../test/harness.ts';
import { keyOf, type marketingClient } from '../marketing.test-support.ts';

/** Creates a mailing and returns its id. */
export async function makeMailing(
  call: ReturnType<typeof marketingClient>,
  subject: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const res = await call('POST', '/campaign_mailings', {
    campaign_mailing: { subject, html_part: '<p>Hello</p>', ...extra },
  });
  if (res.statusCode !== 200) throw new Error(`mailing create failed: ${res.body}`);
  return String(res.json().data.id);
}

/** How many rows a table holds in all: what a refused request must leave unchanged. */
export async function rowCount(t: TestApp, table: 'campaign_mailings' | 'messages'): Promise<number> {
  const row = await t.ctx.database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Stores a send of the mailing in the given state, with one delivery; returns the send id. */
export async function storeSend(
  t: TestApp,
  customerId: number,
  mailingId: string,
  state: string,
): Promise<number> {
  const db = t.ctx.database.db;
  const now = Date.now();
  const mailingKey = await keyOf(t, 'campaign_mailings', mailingId);
  const send = await db
    .insertInto('campaign_mailing_sends')
    .values({
      customer_id: customerId,
      campaign_mailing_id: mailingKey,
      subscription_list_name: 'All contacts',
      state,
      jid: `jid-${mailingId}-${state}-${now}-${Math.random()}`,
      send_at: now,
      content: '{}',
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('marketing_deliveries')
    .values({
      customer_id: customerId,
      send_id: Number(send.id),
      campaign_mailing_id: mailingKey,
      email: 'someone@example.net',
      status: 'queued',
      delivery_status: 'processing',
      created_at: now,
      updated_at: now,
    })
    .execute();
  return Number(send.id);
}
