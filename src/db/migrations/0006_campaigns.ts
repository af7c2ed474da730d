/**
 * Marketing campaigns: mailings (the content), sends (one mailing to one list, now or scheduled, with its frozen
 * audience and counters), deliveries (one row per send and subscriber, or per drip step and subscriber), the links of a
 * send, the clicks of a delivery's links, and captured copies of marketing mail.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';
import { serialId } from './columns.ts';

/** Counters kept on a mailing and on each of its sends. */
const COUNTERS = [
  'sent_count',
  'delivered_count',
  'viewed_count',
  'clicked_count',
  'bounced_count',
  'soft_bounced_count',
  'hard_bounced_count',
  'unsubscribed_count',
  'global_unsubscribed_count',
] as const;

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await createMailings(db, dialect);
  await createSends(db, dialect);
  await createDeliveries(db, dialect);
  await createLinkTables(db, dialect);
  await createCapturedCopies(db);
  await createSettings(db);
}

/** The campaign mailings: their content and counters, one subject per account. */
async function createMailings(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  let mailings = serialId(db.schema.createTable('campaign_mailings'), dialect)
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('subject_key', 'text', (c) => c.notNull())
    .addColumn('html_part', 'text')
    .addColumn('text_part', 'text')
    .addColumn('template_type', 'text', (c) => c.notNull().defaultTo('html'))
    .addColumn('from_email', 'text')
    .addColumn('from_name', 'text');
  for (const col of COUNTERS) mailings = mailings.addColumn(col, 'integer', (c) => c.notNull().defaultTo(0));
  await mailings
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('campaign_mailings_subject_unique', ['customer_id', 'subject_key'])
    .execute();
}

/** The sends of a mailing to a list, with their frozen audience, state and counters. */
async function createSends(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  let sends = serialId(db.schema.createTable('campaign_mailing_sends'), dialect)
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('campaign_mailing_id', 'bigint', (c) =>
      c.notNull().references('campaign_mailings.id').onDelete('cascade'),
    )
    // The list may be deleted later; its name is kept for the sends table.
    .addColumn('subscription_list_id', 'bigint', (c) =>
      c.references('subscription_lists.id').onDelete('set null'),
    )
    .addColumn('subscription_list_name', 'text', (c) => c.notNull())
    /** scheduled | expanding | sending | sent | cancelled */
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('jid', 'text', (c) => c.notNull().unique())
    .addColumn('send_at', 'bigint', (c) => c.notNull())
    /** JSON: subject, html, text, from, sender, customerName, recipientEmails, frozen when the send starts. */
    .addColumn('content', 'text', (c) => c.notNull())
    /** Memberships created after this instant are not part of the audience. Set when expansion starts. */
    .addColumn('frozen_at', 'bigint')
    /** The last subscriber id expanded; expansion resumes after it. */
    .addColumn('expand_cursor', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('audience_count', 'integer', (c) => c.notNull().defaultTo(0))
    /** Audience deliveries that reached a final state (delivered, failed or skipped); the send is sent when all have. */
    .addColumn('settled_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('customer_name', 'text')
    .addColumn('sender_email', 'text');
  for (const col of COUNTERS) sends = sends.addColumn(col, 'integer', (c) => c.notNull().defaultTo(0));
  await sends
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('sent_at', 'bigint')
    /** When expansion reached the end of the list. */
    .addColumn('expanded_at', 'bigint')
    .addColumn('finished_at', 'bigint')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('campaign_mailing_sends_customer_idx')
    .on('campaign_mailing_sends')
    .columns(['customer_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('campaign_mailing_sends_mailing_idx')
    .on('campaign_mailing_sends')
    .columns(['campaign_mailing_id'])
    .execute();
}

/** The marketing deliveries, one per send and subscriber or per drip step and subscriber. */
async function createDeliveries(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await serialId(db.schema.createTable('marketing_deliveries'), dialect)
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('send_id', 'bigint', (c) => c.references('campaign_mailing_sends.id').onDelete('cascade'))
    .addColumn('campaign_mailing_id', 'bigint', (c) =>
      c.references('campaign_mailings.id').onDelete('cascade'),
    )
    .addColumn('drip_enrollment_id', 'bigint')
    .addColumn('drip_node_id', 'text')
    // No foreign key: a deleted subscriber's deliveries stay in the campaign's analytics.
    .addColumn('subscriber_id', 'bigint')
    .addColumn('email', 'text', (c) => c.notNull())
    /** queued | deferred | delivered | failed | skipped */
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('delivery_status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_response', 'text')
    .addColumn('via', 'text')
    .addColumn('tls', 'integer')
    /** Set on the first attempt; the same on every retry. */
    .addColumn('header_message_id', 'text')
    .addColumn('delivered_at', 'bigint')
    .addColumn('soft_bounced', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('first_opened_at', 'bigint')
    .addColumn('open_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('click_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('unsubscribed_at', 'bigint')
    .addColumn('global_unsubscribed_at', 'bigint')
    .addColumn('secure_token_hash', 'text', (c) => c.unique())
    .addColumn('secure_expires_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // Exactly one delivery per (send, subscriber) and per (drip enrollment, step); NULLs do not collide.
  await db.schema
    .createIndex('marketing_deliveries_send_subscriber')
    .on('marketing_deliveries')
    .columns(['send_id', 'subscriber_id'])
    .unique()
    .execute();
  await db.schema
    .createIndex('marketing_deliveries_drip_step')
    .on('marketing_deliveries')
    .columns(['drip_enrollment_id', 'drip_node_id'])
    .unique()
    .execute();
  await db.schema
    .createIndex('marketing_deliveries_subscriber_idx')
    .on('marketing_deliveries')
    .columns(['subscriber_id'])
    .execute();
  await db.schema
    .createIndex('marketing_deliveries_mailing_idx')
    .on('marketing_deliveries')
    .columns(['campaign_mailing_id'])
    .execute();
}

/** The tracked links of each send and the clicks of each delivery's links. */
async function createLinkTables(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  /** The tracked links of a send's content, by position (html_id), with their click totals. */
  await db.schema
    .createTable('campaign_send_links')
    .addColumn('send_id', 'bigint', (c) =>
      c.notNull().references('campaign_mailing_sends.id').onDelete('cascade'),
    )
    .addColumn('html_id', 'integer', (c) => c.notNull())
    .addColumn('target_url', 'text', (c) => c.notNull())
    .addColumn('clicked', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('campaign_send_links_pk', ['send_id', 'html_id'])
    .execute();

  /** One row per delivery and link once the link is clicked: a tracking link of spec 2.13. */
  await serialId(db.schema.createTable('marketing_link_clicks'), dialect)
    .addColumn('delivery_id', 'bigint', (c) =>
      c.notNull().references('marketing_deliveries.id').onDelete('cascade'),
    )
    .addColumn('send_id', 'bigint')
    .addColumn('html_id', 'integer', (c) => c.notNull())
    .addColumn('target_url', 'text', (c) => c.notNull())
    .addColumn('clicked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('first_clicked_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('marketing_link_clicks_unique', ['delivery_id', 'html_id'])
    .execute();
  await db.schema
    .createIndex('marketing_link_clicks_send_idx')
    .on('marketing_link_clicks')
    .columns(['send_id', 'html_id'])
    .execute();
}

/** The captured copies of marketing mail. */
async function createCapturedCopies(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('marketing_captured')
    .addColumn('delivery_id', 'bigint', (c) =>
      c.primaryKey().references('marketing_deliveries.id').onDelete('cascade'),
    )
    .addColumn('customer_id', 'integer', (c) => c.notNull())
    .addColumn('envelope_from', 'text', (c) => c.notNull())
    .addColumn('envelope_to', 'text', (c) => c.notNull())
    .addColumn('raw', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}

/** The marketing settings of each account. */
async function createSettings(db: Kysely<unknown>): Promise<void> {
  /** Accounts that opted in to having transactional sends skip globally unsubscribed addresses. */
  await db.schema
    .createTable('marketing_settings')
    .addColumn('customer_id', 'integer', (c) => c.primaryKey().references('customers.id').onDelete('cascade'))
    .addColumn('suppress_transactional', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of [
    'marketing_settings',
    'marketing_captured',
    'marketing_link_clicks',
    'campaign_send_links',
    'marketing_deliveries',
    'campaign_mailing_sends',
    'campaign_mailings',
  ])
    await db.schema.dropTable(t).execute();
}
