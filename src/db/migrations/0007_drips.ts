/**
 * Drip campaigns: the campaign (its graph, state and counters, and the enrollment watermark) and one enrollment per
 * (drip, subscriber) holding the node the subscriber is at and the step sequence that guards against re-runs; and an
 * index of list memberships by creation time, which enrollment reads.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';
import { serialId } from './columns.ts';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await serialId(db.schema.createTable('drip_campaigns'), dialect)
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    // The list may be deleted later; the drip then enrolls nobody new and keeps the name for display.
    .addColumn('subscription_list_id', 'bigint', (c) =>
      c.references('subscription_lists.id').onDelete('set null'),
    )
    .addColumn('subscription_list_name', 'text', (c) => c.notNull())
    /** subscription | form_submission */
    .addColumn('start_trigger', 'text', (c) => c.notNull())
    .addColumn('form_id', 'text')
    /** draft | active | paused */
    .addColumn('state', 'text', (c) => c.notNull())
    /** drip_campaign_nodes as stored (normalised JSON text) and the derived successor map. */
    .addColumn('nodes', 'text', (c) => c.notNull())
    .addColumn('tree_blob', 'text', (c) => c.notNull())
    .addColumn('subscriber_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('subscriber_completed_count', 'integer', (c) => c.notNull().defaultTo(0))
    /** How many times the drip was started; keys the resume work row of each start. */
    .addColumn('start_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('started_at', 'bigint')
    /** Enrollment has looked at memberships and submissions up to this instant. */
    .addColumn('enroll_watermark', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('drip_campaigns_customer_idx')
    .on('drip_campaigns')
    .columns(['customer_id', 'created_at'])
    .execute();
  await db.schema.createIndex('drip_campaigns_state_idx').on('drip_campaigns').columns(['state']).execute();

  await serialId(db.schema.createTable('drip_enrollments'), dialect)
    .addColumn('drip_campaign_id', 'bigint', (c) =>
      c.notNull().references('drip_campaigns.id').onDelete('cascade'),
    )
    .addColumn('customer_id', 'integer', (c) => c.notNull())
    .addColumn('subscriber_id', 'bigint', (c) => c.notNull().references('subscribers.id').onDelete('cascade'))
    /** The node whose step runs next (or ran last, once completed or stopped). */
    .addColumn('node_id', 'text', (c) => c.notNull())
    /** Bumped by every step and every park; a step row runs only when its sequence matches. */
    .addColumn('seq', 'integer', (c) => c.notNull().defaultTo(0))
    /** active | parked | completed | stopped */
    .addColumn('state', 'text', (c) => c.notNull())
    /** Why a stopped enrollment stopped: unsubscribed | node_removed | subscriber_gone. */
    .addColumn('stop_reason', 'text')
    /** The delivery of the last email step, read by conditions. */
    .addColumn('last_delivery_id', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('finished_at', 'bigint')
    .addUniqueConstraint('drip_enrollments_once', ['drip_campaign_id', 'subscriber_id'])
    .execute();
  // Enrollment reads the memberships of a list created since a watermark.
  await db.schema
    .createIndex('subscription_list_members_list_created_idx')
    .on('subscription_list_members')
    .columns(['list_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('drip_enrollments_state_idx')
    .on('drip_enrollments')
    .columns(['drip_campaign_id', 'state'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('subscription_list_members_list_created_idx').execute();
  for (const t of ['drip_enrollments', 'drip_campaigns']) await db.schema.dropTable(t).execute();
}
