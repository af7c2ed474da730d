/** The event names webhooks carry, and which email event each one posts. */

/** Every event name an endpoint may subscribe to, as the interface names them. */
export const WEBHOOK_EVENTS = [
  'api_mail_log_delivered',
  'api_mail_log_opened',
  'api_mail_log_temporary_failure',
  'api_mail_log_permanent_failure',
  'api_mail_log_suppressed',
  'api_mail_log_complained',
] as const;

/**
 * The event "Send test event" posts (console, or `POST /webhook_endpoints/<id>/test`): to one endpoint, whatever it is
 * subscribed to, once, signed like every other. It names no message; it is never replayed.
 */
export const TEST_EVENT = 'webhook_test';

/** The email event row behind a test event (never counted as a delivery outcome). */
export const TEST_EMAIL_EVENT = 'webhook_test';

/** An event name an endpoint may subscribe to. */
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

const BY_EMAIL_EVENT: Readonly<Record<string, WebhookEvent>> = {
  delivered: 'api_mail_log_delivered',
  opened: 'api_mail_log_opened',
  temporary_failure: 'api_mail_log_temporary_failure',
  permanent_failure: 'api_mail_log_permanent_failure',
  suppressed: 'api_mail_log_suppressed',
  complained: 'api_mail_log_complained',
};

/** The webhook event name of an email event (`delivered` → `api_mail_log_delivered`), or undefined when it is not pushed (clicks). */
export function webhookEventOf(emailEvent: string): WebhookEvent | undefined {
  return BY_EMAIL_EVENT[emailEvent];
}

/** The email events (`delivered`, ...) behind the given webhook event names. */
export function emailEventsOf(names: readonly string[]): string[] {
  return Object.entries(BY_EMAIL_EVENT)
    .filter(([, name]) => names.includes(name))
    .map(([event]) => event);
}

/** True when `name` is a webhook event name. */
export function isWebhookEvent(name: string): name is WebhookEvent {
  return (WEBHOOK_EVENTS as readonly string[]).includes(name);
}
