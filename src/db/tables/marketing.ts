/** Tables of marketing audiences: lists, subscribers, memberships, custom fields. */
import type { Generated } from 'kysely';

export interface SubscriptionListsTable {
  id: Generated<number>;
  /** Public id: a random RFC 9562 UUID, unique, filled by the database on insert. */
  uuid: Generated<string>;
  customer_id: number;
  name: string;
  /** 1 for the account's one list of all contacts. */
  is_default: number;
  /** Members of the list (subscribed or not); maintained with every membership change. */
  subscriber_count: number;
  /** 1 when new members must confirm their address before they receive campaigns. */
  double_opt_in: Generated<number>;
  /** The From address of the list's confirmation emails (a verified domain of the account). */
  confirm_from_email: string | null;
  /** 1 when the list is offered on the public preference page. */
  public: Generated<number>;
  created_at: number;
  updated_at: number;
}

export interface SubscribersTable {
  id: Generated<number>;
  /** Public id: a random RFC 9562 UUID, unique, filled by the database on insert. */
  uuid: Generated<string>;
  customer_id: number;
  /** As given; '' for a subscriber known by phone only. */
  email: string;
  /** Lower-cased email, or `tel:<E.164>` for a subscriber known by phone only; unique per account. */
  email_key: string;
  first_name: string | null;
  last_name: string | null;
  /** E.164 (numbers stored before 0024 as they were typed). */
  phone_number: string | null;
  /** The phone number as it was typed. */
  phone_number_input?: string | null;
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
  /** Internal numeric id, filled by the database on insert (a serial on PostgreSQL, a trigger on SQLite). */
  id: Generated<number>;
  /** Public id: a random RFC 9562 UUID, unique, filled by the database on insert. */
  uuid: Generated<string>;
  list_id: number;
  subscriber_id: number;
  /** 1 when unsubscribed from this list only. */
  unsubscribed: number;
  /** When the member confirmed; null while a double opt-in list waits for the confirmation (or the list never asked). */
  confirmed_at?: number | null;
  /** SHA-256 of the nonce of the open confirmation link; null once used. */
  confirm_hash?: string | null;
  confirm_expires_at?: number | null;
  confirm_sent_at?: number | null;
  created_at: number;
  updated_at: number;
}

export interface SubscriberCustomFieldTypesTable {
  id: Generated<number>;
  uuid: Generated<string>;
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

export interface DynamicListsTable {
  id: Generated<number>;
  /** Public id: a random RFC 9562 UUID, unique, filled by the database on insert. */
  uuid: Generated<string>;
  customer_id: number;
  name: string;
  /** Checked filters as JSON text (docs/marketing.md, Dynamic lists). */
  filters: string;
  created_at: number;
  updated_at: number;
}

export interface BulkJobsTable {
  id: Generated<number>;
  customer_id: number;
  /** subscribers_export | dynamic_list_export */
  kind: string;
  /** queued | running | finished | failed */
  state: string;
  params: string;
  rows_done: Generated<number>;
  rows_total: number | null;
  key_hash: string;
  chunks: Generated<number>;
  error: string | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
}

export interface BulkJobChunksTable {
  job_id: number;
  seq: number;
  /** Sealed CSV text. */
  data: string;
}
