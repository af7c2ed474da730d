/** Tables of transactional email and its webhooks: messages, recipients, links, events, templates, captured copies, endpoints and deliveries. */
import type { Generated } from 'kysely';

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
  /** Sealed JSON of the message content (see mail/content.ts); null once purged by retention. */
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
  /** Keyed hash of the normalized subject (see email/message-log.service.ts), so the log can find a subject it cannot read. */
  subject_hash: string | null;
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

/** A message held until `scheduled_at`; its id becomes the sent message's id (the sourceTrackingId). */
export interface ScheduledMessagesTable {
  id: string;
  customer_id: number;
  /** The domain the scheduling API key was bound to, checked again when the message is sent. */
  key_domain: string | null;
  state: 'scheduled' | 'sent' | 'cancelled' | 'failed';
  scheduled_at: number;
  /** Raised by each reschedule; a work row names the revision it was made for. */
  revision: number;
  /** Sealed JSON of the message and its tracking options; null once sent, cancelled or failed. */
  content: string | null;
  /** The catalogue code that kept a due message from being sent. */
  error_code: string | null;
  created_at: number;
  updated_at: number;
  sent_at: number | null;
  cancelled_at: number | null;
}

export interface DynamicTemplatesTable {
  id: Generated<number>;
  customer_id: number;
  name: string;
  body: string;
  /** JSON of the block document the body was rendered from; null for a body written as Handlebars HTML. */
  content_blocks: string | null;
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

/** An address the account's transactional mail is no longer sent to. */
export interface EmailSuppressionsTable {
  customer_id: number;
  /** Lower-cased. */
  address: string;
  reason: 'hard_bounce' | 'complaint' | 'manual';
  /** The reply or report that put the address here. */
  detail: string;
  message_id: string | null;
  created_at: number;
}

/** An account's email settings, present once changed. */
export interface EmailSettingsTable {
  customer_id: number;
  /** 1: hard bounces and complaints are listed and listed addresses are skipped; 0: the list is neither kept nor applied. */
  suppression_list: number;
  updated_at: number;
}
