/**
 * Test seeding for campaign analytics: writes mailings, sends, send links, deliveries and clicks straight into the
 * database, the way the campaign pipeline and tracking leave them, so the read side can be checked without sending.
 * Every helper takes the handle first and returns the new row's id; anything not given gets a plain default.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { CampaignCounters, DB } from '../../db/types.ts';
import { ensureFieldTypes, upsertFieldValues } from '../subscribers/custom-fields.repository.ts';

type Counters = { [K in keyof CampaignCounters]?: number };

/** A subscriber, with custom fields by name. */
export async function seedSubscriber(
  db: Kysely<DB>,
  customerId: number,
  s: {
    email: string;
    first_name?: string;
    last_name?: string;
    created_at?: number;
    fields?: Record<string, string>;
  },
): Promise<number> {
  const at = s.created_at ?? Date.now();
  const row = await db
    .insertInto('subscribers')
    .values({
      customer_id: customerId,
      email: s.email,
      email_key: s.email.toLowerCase(),
      first_name: s.first_name ?? null,
      last_name: s.last_name ?? null,
      phone_number: null,
      unsubscribed_at: null,
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const id = Number(row.id);
  const fields = Object.entries(s.fields ?? {});
  if (fields.length > 0) {
    const types = await ensureFieldTypes(
      db,
      customerId,
      new Map(fields.map(([name]) => [name.toLowerCase(), name])),
      at,
    );
    await upsertFieldValues(
      db,
      fields.map(([name, value]) => ({
        subscriber_id: id,
        field_type_id: types.get(name.toLowerCase())!,
        value,
      })),
    );
  }
  return id;
}

/** A campaign mailing (its counters stay 0 unless given). */
export async function seedMailing(
  db: Kysely<DB>,
  customerId: number,
  m: { subject: string; created_at?: number } & Counters,
): Promise<number> {
  const { subject, created_at, ...counters } = m;
  const at = created_at ?? Date.now();
  const row = await db
    .insertInto('campaign_mailings')
    .values({
      customer_id: customerId,
      subject,
      subject_key: subject.trim().toLowerCase(),
      html_part: '<p>Hello</p>',
      text_part: 'Hello',
      template_type: 'html',
      from_email: null,
      from_name: null,
      created_at: at,
      updated_at: at,
      ...counters,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** A send of a mailing with its counters and, by position, the links of its content (each with 0 clicks). */
export async function seedSend(
  db: Kysely<DB>,
  customerId: number,
  s: {
    mailingId: number;
    listName: string;
    listId?: number | null;
    state?: 'scheduled' | 'expanding' | 'sending' | 'sent' | 'cancelled';
    created_at?: number;
    /** When sending started; null for a send that has not started. */
    sent_at?: number | null;
    links?: string[];
  } & Counters,
): Promise<number> {
  const { mailingId, listName, listId, state, created_at, sent_at, links, ...counters } = s;
  const at = created_at ?? Date.now();
  const row = await db
    .insertInto('campaign_mailing_sends')
    .values({
      customer_id: customerId,
      campaign_mailing_id: mailingId,
      subscription_list_id: listId ?? null,
      subscription_list_name: listName,
      state: state ?? 'sent',
      jid: randomBytes(12).toString('hex'),
      send_at: at,
      content: '{}',
      frozen_at: null,
      created_at: at,
      sent_at: sent_at === undefined ? at : sent_at,
      finished_at: null,
      updated_at: at,
      ...counters,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const id = Number(row.id);
  if (links?.length)
    await db
      .insertInto('campaign_send_links')
      .values(links.map((target_url, html_id) => ({ send_id: id, html_id, target_url })))
      .execute();
  return id;
}

/** A delivery of a send (or, with `sendId: null`, of a drip step) to one subscriber. */
export async function seedDelivery(
  db: Kysely<DB>,
  customerId: number,
  d: {
    sendId: number | null;
    mailingId: number;
    subscriberId: number | null;
    email: string;
    status?: 'queued' | 'deferred' | 'delivered' | 'failed' | 'skipped';
    created_at?: number;
    first_opened_at?: number | null;
    unsubscribed_at?: number | null;
    global_unsubscribed_at?: number | null;
  },
): Promise<number> {
  const at = d.created_at ?? Date.now();
  const status = d.status ?? 'delivered';
  const row = await db
    .insertInto('marketing_deliveries')
    .values({
      customer_id: customerId,
      send_id: d.sendId,
      campaign_mailing_id: d.mailingId,
      drip_enrollment_id: d.sendId === null ? Number(randomBytes(4).readUInt32BE()) : null,
      drip_node_id: d.sendId === null ? 'step' : null,
      subscriber_id: d.subscriberId,
      email: d.email,
      status,
      delivery_status: status,
      last_response: null,
      via: null,
      tls: null,
      header_message_id: null,
      delivered_at: status === 'delivered' ? at : null,
      first_opened_at: d.first_opened_at ?? null,
      open_count: d.first_opened_at ? 1 : 0,
      unsubscribed_at: d.unsubscribed_at ?? null,
      global_unsubscribed_at: d.global_unsubscribed_at ?? null,
      secure_token_hash: null,
      secure_expires_at: null,
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/**
 * `times` clicks of the link at `htmlId` in one delivery, kept as tracking keeps them: the delivery's click row (created
 * on the first click), the delivery's click count and, for a send's delivery, the send link's total.
 */
export async function seedClicks(
  db: Kysely<DB>,
  c: {
    deliveryId: number;
    sendId: number | null;
    htmlId: number;
    targetUrl: string;
    times?: number;
    at?: number;
  },
): Promise<number> {
  const times = c.times ?? 1;
  const at = c.at ?? Date.now();
  const row = await db
    .insertInto('marketing_link_clicks')
    .values({
      delivery_id: c.deliveryId,
      send_id: c.sendId,
      html_id: c.htmlId,
      target_url: c.targetUrl,
      clicked: times,
      first_clicked_at: at,
      created_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .updateTable('marketing_deliveries')
    .set((eb) => ({ click_count: eb('click_count', '+', times) }))
    .where('id', '=', c.deliveryId)
    .execute();
  if (c.sendId !== null)
    await db
      .updateTable('campaign_send_links')
      .set((eb) => ({ clicked: eb('clicked', '+', times) }))
      .where('send_id', '=', c.sendId)
      .where('html_id', '=', c.htmlId)
      .execute();
  return Number(row.id);
}
