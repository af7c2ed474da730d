/** Tables of campaigns and drips: mailings, sends, deliveries, links, clicks, captured copies, settings, drips and enrollments. */
import type { Generated } from 'kysely';

/** Counters a mailing and each of its sends keep, maintained as deliveries settle and events arrive. */
export interface CampaignCounters {
  sent_count: Generated<number>;
  delivered_count: Generated<number>;
  viewed_count: Generated<number>;
  clicked_count: Generated<number>;
  bounced_count: Generated<number>;
  soft_bounced_count: Generated<number>;
  hard_bounced_count: Generated<number>;
  unsubscribed_count: Generated<number>;
  global_unsubscribed_count: Generated<number>;
}

export interface CampaignMailingsTable extends CampaignCounters {
  id: Generated<number>;
  /** Public id: a random RFC 9562 UUID, unique, filled by the database on insert. */
  uuid: Generated<string>;
  customer_id: number;
  subject: string;
  /** Lower-cased, trimmed subject; unique per account. */
  subject_key: string;
  html_part: string | null;
  text_part: string | null;
  /** JSON of the block document the HTML and text were rendered from; null for mailings written as HTML or text. */
  content_blocks: string | null;
  template_type: string;
  from_email: string | null;
  from_name: string | null;
  created_at: number;
  updated_at: number;
}

export interface CampaignMailingSendsTable extends CampaignCounters {
  id: Generated<number>;
  /** Public id: a random RFC 9562 UUID, unique, filled by the database on insert. */
  uuid: Generated<string>;
  customer_id: number;
  campaign_mailing_id: number;
  subscription_list_id: number | null;
  subscription_list_name: string;
  /** scheduled | expanding | sending | sent | cancelled */
  state: string;
  /** The schedule's job id shown to clients. */
  jid: string;
  send_at: number;
  /** JSON of the content frozen for this send. */
  content: string;
  frozen_at: number | null;
  expand_cursor: Generated<number>;
  audience_count: Generated<number>;
  settled_count: Generated<number>;
  customer_name: string | null;
  sender_email: string | null;
  /** The dynamic list that narrows the audience, and its filters as frozen when the send was created. */
  dynamic_list_id: number | null;
  dynamic_filters: string | null;
  created_at: number;
  sent_at: number | null;
  expanded_at: number | null;
  finished_at: number | null;
  updated_at: number;
}

export interface MarketingDeliveriesTable {
  id: Generated<number>;
  /** Public id: a random RFC 9562 UUID, unique, filled by the database on insert. */
  uuid: Generated<string>;
  customer_id: number;
  send_id: number | null;
  campaign_mailing_id: number | null;
  drip_enrollment_id: number | null;
  drip_node_id: string | null;
  subscriber_id: number | null;
  email: string;
  /** queued | deferred | delivered | failed | skipped */
  status: string;
  delivery_status: string;
  attempts: Generated<number>;
  last_response: string | null;
  via: string | null;
  tls: number | null;
  header_message_id: string | null;
  delivered_at: number | null;
  soft_bounced: Generated<number>;
  first_opened_at: number | null;
  open_count: Generated<number>;
  click_count: Generated<number>;
  unsubscribed_at: number | null;
  global_unsubscribed_at: number | null;
  secure_token_hash: string | null;
  secure_expires_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface CampaignSendLinksTable {
  send_id: number;
  html_id: number;
  target_url: string;
  clicked: Generated<number>;
}

export interface MarketingLinkClicksTable {
  id: Generated<number>;
  delivery_id: number;
  send_id: number | null;
  html_id: number;
  target_url: string;
  clicked: Generated<number>;
  first_clicked_at: number;
  created_at: number;
}

export interface MarketingCapturedTable {
  delivery_id: number;
  customer_id: number;
  envelope_from: string;
  envelope_to: string;
  raw: string | null;
  created_at: number;
}

export interface MarketingSettingsTable {
  customer_id: number;
  suppress_transactional: number;
  /** The account's postal address, printed in the footer of the default campaign layout. */
  postal_address?: string | null;
  /** The display name of the brand on public pages and system emails; null uses the account's name. */
  brand_name?: string | null;
  /** The brand colour, `#rrggbb`; null uses the default. */
  brand_color?: string | null;
  /** The logo: the id of an image of the account's library. */
  brand_logo_id?: string | null;
  updated_at: number;
}

export interface DripCampaignsTable {
  id: Generated<number>;
  /** Public id: a random RFC 9562 UUID, unique, filled by the database on insert. */
  uuid: Generated<string>;
  customer_id: number;
  name: string;
  subscription_list_id: number | null;
  subscription_list_name: string;
  /** subscription | form_submission */
  start_trigger: string;
  form_id: string | null;
  /** draft | active | paused */
  state: string;
  /** drip_campaign_nodes: JSON text `{"nodes": [...], "edges": [...]}`. */
  nodes: string;
  /** JSON text: the start node id and each node's successors. */
  tree_blob: string;
  subscriber_count: Generated<number>;
  subscriber_completed_count: Generated<number>;
  start_count: Generated<number>;
  started_at: number | null;
  enroll_watermark: number | null;
  created_at: number;
  updated_at: number;
}

export interface DripEnrollmentsTable {
  id: Generated<number>;
  drip_campaign_id: number;
  customer_id: number;
  subscriber_id: number;
  node_id: string;
  seq: Generated<number>;
  /** active | parked | completed | stopped */
  state: string;
  stop_reason: string | null;
  last_delivery_id: number | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
}
