/**
 * The schema as Kysely sees it, for both dialects: timestamps are epoch milliseconds, booleans 0/1 integers, JSON text.
 * Each feature's table types live in db/tables/; they are re-exported here so repositories import from one place.
 */
import type { Kysely, Transaction } from 'kysely';
import type {
  CustomersTable,
  DomainsTable,
  ApiKeysTable,
  JobsTable,
  LeasesTable,
  WorkerNodesTable,
  MasterKeyCheckTable,
  ImagesTable,
} from './tables/core.ts';
import type {
  MessagesTable,
  MessageRecipientsTable,
  MessageLinksTable,
  EmailEventsTable,
  IdempotencyKeysTable,
  ScheduledMessagesTable,
  DynamicTemplatesTable,
  CapturedMessagesTable,
  WebhookEndpointsTable,
  WebhookDeliveriesTable,
  WebhookAttemptsTable,
  EmailSuppressionsTable,
  EmailSettingsTable,
} from './tables/email.ts';
import type {
  FormsTable,
  FormSubmissionsTable,
  FormSignaturesTable,
  FormDailyCountsTable,
} from './tables/forms.ts';
import type {
  SubscriptionListsTable,
  SubscribersTable,
  SubscriptionListMembersTable,
  SubscriberCustomFieldTypesTable,
  SubscriberCustomFieldValuesTable,
  DynamicListsTable,
  BulkJobsTable,
  BulkJobChunksTable,
} from './tables/marketing.ts';
import type {
  CampaignMailingsTable,
  CampaignMailingSendsTable,
  MarketingDeliveriesTable,
  CampaignSendLinksTable,
  MarketingLinkClicksTable,
  MarketingCapturedTable,
  MarketingSettingsTable,
  DripCampaignsTable,
  DripEnrollmentsTable,
} from './tables/campaigns.ts';
import type {
  UsersTable,
  ConsoleDraftsTable,
  ConsoleSessionsTable,
  ConsoleRevealsTable,
  UserRecoveryCodesTable,
  UserTokensTable,
  SignInThrottlesTable,
  AccountSecurityTable,
  AuditLogTable,
} from './tables/console.ts';
import type {
  SubscriberImportsTable,
  SubscriberImportChunksTable,
  SubscriberImportErrorsTable,
} from './tables/imports.ts';

export type * from './tables/core.ts';
export type * from './tables/email.ts';
export type * from './tables/forms.ts';
export type * from './tables/marketing.ts';
export type * from './tables/campaigns.ts';
export type * from './tables/console.ts';
export type * from './tables/imports.ts';

/** The whole schema as Kysely sees it. */
export interface DB {
  customers: CustomersTable;
  domains: DomainsTable;
  api_keys: ApiKeysTable;
  jobs: JobsTable;
  leases: LeasesTable;
  worker_nodes: WorkerNodesTable;
  master_key_check: MasterKeyCheckTable;
  messages: MessagesTable;
  message_recipients: MessageRecipientsTable;
  message_links: MessageLinksTable;
  email_events: EmailEventsTable;
  idempotency_keys: IdempotencyKeysTable;
  scheduled_messages: ScheduledMessagesTable;
  dynamic_templates: DynamicTemplatesTable;
  captured_messages: CapturedMessagesTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  email_suppressions: EmailSuppressionsTable;
  email_settings: EmailSettingsTable;
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
  images: ImagesTable;
  drip_campaigns: DripCampaignsTable;
  drip_enrollments: DripEnrollmentsTable;
  users: UsersTable;
  console_sessions: ConsoleSessionsTable;
  console_drafts: ConsoleDraftsTable;
  console_reveals: ConsoleRevealsTable;
  user_recovery_codes: UserRecoveryCodesTable;
  user_tokens: UserTokensTable;
  sign_in_throttles: SignInThrottlesTable;
  account_security: AccountSecurityTable;
  audit_log: AuditLogTable;
  subscriber_imports: SubscriberImportsTable;
  subscriber_import_chunks: SubscriberImportChunksTable;
  subscriber_import_errors: SubscriberImportErrorsTable;
  dynamic_lists: DynamicListsTable;
  bulk_jobs: BulkJobsTable;
  bulk_job_chunks: BulkJobChunksTable;
}

/** A database handle or an open transaction: repositories accept either. */
export type Queryable = Kysely<DB> | Transaction<DB>;
