/** Table types shared by both dialects. Timestamps are epoch milliseconds; booleans are 0/1 integers; JSON is text. */
import type { Generated, Kysely, Transaction } from 'kysely';

export interface CustomersTable {
  id: Generated<number>;
  username: string;
  created_at: number;
}

export interface DomainsTable {
  id: string;
  customer_id: number;
  name: string;
  verified: number;
  verified_at: number | null;
  verification_token: string;
  dkim_selector: string;
  dkim_public_key: string;
  /** Sealed with the master key. */
  dkim_private_key: string;
  created_at: number;
}

export interface ApiKeysTable {
  id: string;
  customer_id: number;
  domain_id: string | null;
  key_prefix: string;
  /** SHA-256 of the key, hex. The key itself is never stored. */
  key_hash: string;
  /** Comma-separated scopes: email, forms, marketing. */
  scopes: string;
  description: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export interface JobsTable {
  id: Generated<number>;
  queue: string;
  payload: string;
  state: 'queued' | 'running' | 'done' | 'failed';
  attempts: Generated<number>;
  run_at: number;
  lease_until: number | null;
  lease_owner: string | null;
  last_error: string | null;
  unique_key: string | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
}

export interface LeasesTable {
  name: string;
  owner: string;
  lease_until: number;
}

export interface MessagesTable {
  /** The sourceTrackingId. */
  id: string;
  customer_id: number;
  domain_id: string | null;
  /** The Message-ID header, in angle brackets. */
  header_message_id: string;
  from_addr: string;
  source: 'api' | 'template' | 'smtp' | 'system' | 'campaign';
  lane: 'transactional' | 'marketing';
  allow_non_tls: number;
  force_secure: number;
  open_tracking: number;
  link_tracking: number;
  /** JSON object of the X- headers given, as given. */
  custom_headers: string;
  /** Sealed JSON of the message content (see email/content.ts); null once purged by retention. */
  content: string | null;
  content_purged_at: number | null;
  recipient_count: number;
  /** Recipients not yet in a final state; the message is finished when it reaches 0. */
  pending_count: number;
  total_opens: Generated<number>;
  total_clicks: Generated<number>;
  unsubscribed: Generated<number>;
  created_at: number;
  finished_at: number | null;
}

export interface MessageRecipientsTable {
  id: Generated<number>;
  message_id: string;
  customer_id: number;
  address: string;
  name: string | null;
  kind: 'to' | 'cc' | 'bcc';
  /** queued | deferred | delivered | failed */
  status: 'queued' | 'deferred' | 'delivered' | 'failed';
  /** The receipt's deliveryStatus text. */
  delivery_status: string;
  delivered_at: number | null;
  attempts: Generated<number>;
  last_response: string | null;
  /** capture | relay | mx, with `+secure` when a secure notification was delivered instead of the message. */
  via: string | null;
  tls: number | null;
  first_opened_at: number | null;
  open_count: Generated<number>;
  secure_token_hash: string | null;
  secure_expires_at: number | null;
  updated_at: number;
}

export interface MessageLinksTable {
  id: Generated<number>;
  message_id: string;
  /** The link's position in the HTML, from 0. */
  position: number;
  target_url: string;
  click_count: Generated<number>;
}

export interface EmailEventsTable {
  id: Generated<number>;
  customer_id: number;
  message_id: string;
  recipient_id: number | null;
  /** delivered | temporary_failure | permanent_failure | opened | clicked */
  event: string;
  data: string;
  created_at: number;
}

export interface IdempotencyKeysTable {
  customer_id: number;
  key: string;
  request_hash: string;
  response: string;
  created_at: number;
}

export interface DynamicTemplatesTable {
  id: Generated<number>;
  customer_id: number;
  name: string;
  body: string;
  created_at: number;
  updated_at: number;
}

export interface CapturedMessagesTable {
  id: Generated<number>;
  customer_id: number;
  message_id: string;
  recipient_id: number;
  envelope_from: string;
  envelope_to: string;
  /** Sealed raw MIME; null once purged by retention. */
  raw: string | null;
  created_at: number;
}

export interface WebhookEndpointsTable {
  id: string;
  customer_id: number;
  target_url: string;
  /** Comma-separated event names (api_mail_log_delivered, ...). */
  events: string;
  /** Sealed signing secret; signs every delivery. */
  signing_secret: string;
  /** Sealed previous secret, still signing during a rotation until retired; null when none. */
  previous_signing_secret: string | null;
  active: number;
  /** Set when deliveries were stopped after a long run of failures; null while enabled. */
  disabled_at: number | null;
  disabled_reason: string | null;
  /** Consecutive failed attempts; 0 after any success. */
  failure_streak: Generated<number>;
  /** When the current run of failures began; null when failure_streak is 0. */
  streak_started_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  endpoint_id: string;
  customer_id: number;
  /** The email_events id this delivery posts. */
  event_id: number;
  event_name: string;
  message_id: string;
  /** Sealpost-Event-Id: stable across retries and replays of this delivery. */
  uid: string;
  /** waiting (behind an earlier event of the same message) | pending (has a work row) | delivered | failed */
  state: 'waiting' | 'pending' | 'delivered' | 'failed';
  /** Bumped each time a work row is made for this delivery; a work row of an older number is stale. */
  dispatch_seq: Generated<number>;
  /** HTTP attempts made. */
  attempts: Generated<number>;
  last_error: string | null;
  delivered_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: number;
  endpoint_id: string;
  attempt: number;
  status_code: number | null;
  latency_ms: number;
  /** The first 500 characters of the response body. */
  response_excerpt: string | null;
  error: string | null;
  created_at: number;
}

export interface FormsTable {
  id: string;
  customer_id: number;
  title: string;
  description: string | null;
  /** The component schema as JSON text (component `text` HTML already sanitized). */
  form_json: string;
  form_html: string;
  form_css: string;
  vanity_url: string | null;
  version: number;
  active: number;
  old_form_id: string | null;
  /** Comma-separated notification addresses. */
  recipient: string;
  signable: number;
  signature_confirmation_label: string | null;
  /** Maintained in the transaction that stores each submission. */
  submission_count: number;
  type: string | null;
  subscription_list_id: string | null;
  deleted: number;
  archived: number;
  created_at: number;
  updated_at: number;
}

export interface FormSubmissionsTable {
  id: string;
  form_id: string;
  customer_id: number;
  form_version: number;
  /** Sealed JSON: the checked values and uploaded files. */
  data: string;
  /** The client's Idempotency-Key (or the hosted page's token); unique per form. */
  idempotency_key: string | null;
  created_at: number;
}

export interface FormSignaturesTable {
  submission_id: string;
  form_id: string;
  form_version: number;
  field_name: string;
  label: string | null;
  ip: string;
  /** Sealed: a data: URL image or the typed name. */
  image: string;
  signed_at: number;
}

export interface FormDailyCountsTable {
  form_id: string;
  customer_id: number;
  /** Days since the Unix epoch (UTC). */
  day: number;
  count: number;
}

export interface SubscriptionListsTable {
  id: Generated<number>;
  customer_id: number;
  name: string;
  /** 1 for the account's one list of all contacts. */
  is_default: number;
  /** Members of the list (subscribed or not); maintained with every membership change. */
  subscriber_count: number;
  created_at: number;
  updated_at: number;
}

export interface SubscribersTable {
  id: Generated<number>;
  customer_id: number;
  /** As given. */
  email: string;
  /** Lower-cased email; unique per account. */
  email_key: string;
  first_name: string | null;
  last_name: string | null;
  phone_number: string | null;
  /** 1 when unsubscribed from everything the account sends. */
  unsubscribed: Generated<number>;
  unsubscribed_at: number | null;
  /** Campaign counters, maintained by sends and tracking. */
  stat_deliveries: Generated<number>;
  stat_delivered: Generated<number>;
  stat_opened: Generated<number>;
  stat_clicked: Generated<number>;
  stat_soft_bounced: Generated<number>;
  stat_hard_bounced: Generated<number>;
  stat_unsubscribed: Generated<number>;
  stat_global_unsubscribed: Generated<number>;
  created_at: number;
  updated_at: number;
}

export interface SubscriptionListMembersTable {
  list_id: number;
  subscriber_id: number;
  /** 1 when unsubscribed from this list only. */
  unsubscribed: number;
  created_at: number;
  updated_at: number;
}

export interface SubscriberCustomFieldTypesTable {
  id: Generated<number>;
  customer_id: number;
  name: string;
  /** Lower-cased name; unique per account. */
  name_key: string;
  created_at: number;
}

export interface SubscriberCustomFieldValuesTable {
  subscriber_id: number;
  field_type_id: number;
  value: string;
}

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
  customer_id: number;
  subject: string;
  /** Lower-cased, trimmed subject; unique per account. */
  subject_key: string;
  html_part: string | null;
  text_part: string | null;
  template_type: string;
  from_email: string | null;
  from_name: string | null;
  created_at: number;
  updated_at: number;
}

export interface CampaignMailingSendsTable extends CampaignCounters {
  id: Generated<number>;
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
  created_at: number;
  sent_at: number | null;
  expanded_at: number | null;
  finished_at: number | null;
  updated_at: number;
}

export interface MarketingDeliveriesTable {
  id: Generated<number>;
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
  updated_at: number;
}

export interface DripCampaignsTable {
  id: Generated<number>;
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

/** The whole schema as Kysely sees it. */
export interface DB {
  customers: CustomersTable;
  domains: DomainsTable;
  api_keys: ApiKeysTable;
  jobs: JobsTable;
  leases: LeasesTable;
  messages: MessagesTable;
  message_recipients: MessageRecipientsTable;
  message_links: MessageLinksTable;
  email_events: EmailEventsTable;
  idempotency_keys: IdempotencyKeysTable;
  dynamic_templates: DynamicTemplatesTable;
  captured_messages: CapturedMessagesTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  forms: FormsTable;
  form_submissions: FormSubmissionsTable;
  form_signatures: FormSignaturesTable;
  form_daily_counts: FormDailyCountsTable;
  subscription_lists: SubscriptionListsTable;
  subscribers: SubscribersTable;
  subscription_list_members: SubscriptionListMembersTable;
  subscriber_custom_field_types: SubscriberCustomFieldTypesTable;
  subscriber_custom_field_values: SubscriberCustomFieldValuesTable;
  campaign_mailings: CampaignMailingsTable;
  campaign_mailing_sends: CampaignMailingSendsTable;
  marketing_deliveries: MarketingDeliveriesTable;
  campaign_send_links: CampaignSendLinksTable;
  marketing_link_clicks: MarketingLinkClicksTable;
  marketing_captured: MarketingCapturedTable;
  marketing_settings: MarketingSettingsTable;
  drip_campaigns: DripCampaignsTable;
  drip_enrollments: DripEnrollmentsTable;
}

/** A database handle or an open transaction: repositories accept either. */
export type Queryable = Kysely<DB> | Transaction<DB>;
