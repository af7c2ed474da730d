/** Words that appear as path segments of the API and so cannot be account usernames (a username is itself a path segment). */

/** Operation names under /v1/<op> and /v1/<username>/<op> on the email surface. */
export const EMAIL_OPS = [
  'messages',
  'bulk_messages',
  'templated_messages',
  'message_receipt',
  'dynamic_templates',
  'webhook_endpoints',
  'captured_messages',
  'schedule',
  'status',
] as const;

/** Operation names under /v1/marketing/<op> and /v1/marketing/<username>/<op>. */
export const MARKETING_OPS = [
  'subscription_lists',
  'subscribers',
  'subscribers_bulk_create',
  'subscribers_bulk_delete',
  'campaign_mailings',
  'campaign_mailings_bulk_delete',
  'campaign_mailing_schedules',
  'campaign_mailing_sends',
  'drip_campaigns',
  'tracking_links',
  'analytics',
  'settings',
  'images',
  'lists',
  'dynamic_lists',
  'subscriptions',
  'current_customer',
  'subscriber_custom_field_types',
  'campaign_mailing_deliveries',
  'subscribers_export_csv',
  'export_dynamic_list_csv',
  'bulk_jobs',
] as const;

/** Surface names and other first path segments. */
const SURFACES = [
  'email',
  'forms',
  'marketing',
  'api',
  'public',
  'v1',
  'healthz',
  'readyz',
  'metrics',
  'docs',
  'openapi',
  'admin',
  'account',
  'accounts',
];

/** Every word a username may not be. */
export const RESERVED_USERNAMES: ReadonlySet<string> = new Set<string>([
  ...SURFACES,
  ...EMAIL_OPS,
  ...MARKETING_OPS,
]);
