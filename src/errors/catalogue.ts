/** The one error catalogue: every code a service may throw, with its HTTP status, SMTP reply and title. docs/errors.md mirrors it (a test keeps them in step). */

/** One catalogue entry. */
export interface ErrorSpec {
  status: number;
  smtp: string;
  title: string;
}

/** Every error code Sealpost returns. */
export const CATALOGUE = {
  'request.invalid': { status: 400, smtp: '501 5.5.4', title: 'Bad request' },
  'request.unsupported_media_type': {
    status: 415,
    smtp: '554 5.6.0',
    title: 'Unsupported media type',
  },
  'request.too_large': {
    status: 413,
    smtp: '552 5.3.4',
    title: 'Request too large',
  },
  'request.unprocessable': {
    status: 422,
    smtp: '550 5.7.1',
    title: 'Unprocessable request',
  },
  'auth.missing_key': {
    status: 401,
    smtp: '530 5.7.0',
    title: 'Authentication required',
  },
  'auth.bad_scheme': {
    status: 401,
    smtp: '535 5.7.8',
    title: 'Unsupported authorization scheme',
  },
  'auth.invalid_key': {
    status: 401,
    smtp: '535 5.7.8',
    title: 'Invalid API key',
  },
  'auth.revoked_key': {
    status: 401,
    smtp: '535 5.7.8',
    title: 'API key revoked',
  },
  'auth.scope': {
    status: 401,
    smtp: '535 5.7.8',
    title: 'API key lacks the required scope',
  },
  'auth.forbidden': { status: 403, smtp: '550 5.7.1', title: 'Forbidden' },
  not_found: { status: 404, smtp: '550 5.1.1', title: 'Not found' },
  conflict: { status: 409, smtp: '550 5.7.1', title: 'Conflict' },
  rate_limited: { status: 429, smtp: '451 4.7.1', title: 'Too many requests' },
  'auth.throttled': { status: 429, smtp: '421 4.7.0', title: 'Too many failed authentications' },
  'account.username_invalid': {
    status: 400,
    smtp: '501 5.5.4',
    title: 'Invalid username',
  },
  'account.username_reserved': {
    status: 400,
    smtp: '501 5.5.4',
    title: 'Username is reserved',
  },
  'account.username_taken': {
    status: 409,
    smtp: '550 5.7.1',
    title: 'Username already taken',
  },
  'account.not_found': {
    status: 404,
    smtp: '550 5.1.1',
    title: 'Account not found',
  },
  'domain.invalid': {
    status: 400,
    smtp: '501 5.5.4',
    title: 'Invalid domain name',
  },
  'domain.exists': {
    status: 409,
    smtp: '550 5.7.1',
    title: 'Domain already added',
  },
  'domain.not_found': {
    status: 404,
    smtp: '550 5.1.1',
    title: 'Domain not found',
  },
  'domain.verification_failed': {
    status: 422,
    smtp: '550 5.7.1',
    title: 'Domain verification failed',
  },
  'key.invalid_scope': {
    status: 400,
    smtp: '501 5.5.4',
    title: 'Invalid key scope',
  },
  'key.not_found': {
    status: 404,
    smtp: '550 5.1.1',
    title: 'API key not found',
  },
  'email.unverified_from': { status: 400, smtp: '550 5.7.1', title: 'Sender domain not verified' },
  'email.idempotency_mismatch': {
    status: 422,
    smtp: '550 5.7.1',
    title: 'Idempotency key reused with a different request',
  },
  'email.bulk_too_large': { status: 400, smtp: '552 5.5.3', title: 'Too many messages in one request' },
  'email.too_many_recipients': { status: 400, smtp: '452 4.5.3', title: 'Too many recipients' },
  'email.template_not_found': { status: 404, smtp: '550 5.1.1', title: 'Template not found' },
  'email.template_invalid': { status: 400, smtp: '501 5.5.4', title: 'Invalid template' },
  'email.template_values_invalid': { status: 400, smtp: '501 5.5.4', title: 'Invalid template values' },
  'email.template_exists': { status: 409, smtp: '550 5.7.1', title: 'Template name already used' },
  'email.message_not_found': { status: 404, smtp: '550 5.1.1', title: 'Message was not found' },
  'email.suppression_not_found': {
    status: 404,
    smtp: '550 5.1.1',
    title: 'Address is not suppressed',
  },
  'email.content_purged': { status: 410, smtp: '550 5.1.1', title: 'Message content removed' },
  'webhook.not_found': { status: 404, smtp: '550 5.1.1', title: 'Webhook endpoint not found' },
  'webhook.invalid_url': { status: 400, smtp: '501 5.5.4', title: 'Invalid webhook target URL' },
  'webhook.target_refused': { status: 400, smtp: '501 5.5.4', title: 'Webhook target address not allowed' },
  'webhook.invalid_events': { status: 400, smtp: '501 5.5.4', title: 'Invalid webhook events' },
  'webhook.invalid_signing_key': { status: 400, smtp: '501 5.5.4', title: 'Invalid webhook signing key' },
  'webhook.not_active': { status: 409, smtp: '550 5.7.1', title: 'Webhook endpoint is not active' },
  'form.invalid_definition': { status: 422, smtp: '550 5.7.1', title: 'Invalid form definition' },
  'form.not_found': { status: 404, smtp: '550 5.1.1', title: 'Form not found' },
  'form.submission_invalid': { status: 422, smtp: '550 5.7.1', title: 'Invalid form submission' },
  'form.submission_not_found': { status: 404, smtp: '550 5.1.1', title: 'Form submission not found' },
  'form.file_not_found': { status: 404, smtp: '550 5.1.1', title: 'Uploaded file not found' },
  'form.bot_check_failed': { status: 403, smtp: '550 5.7.1', title: 'Bot check failed' },
  'marketing.list_not_found': { status: 404, smtp: '550 5.1.1', title: 'Subscription list not found' },
  'marketing.list_name_invalid': { status: 400, smtp: '501 5.5.4', title: 'Invalid subscription list name' },
  'marketing.default_list_locked': {
    status: 409,
    smtp: '550 5.7.1',
    title: 'The default list cannot be changed',
  },
  'marketing.subscriber_not_found': { status: 404, smtp: '550 5.1.1', title: 'Subscriber not found' },
  'marketing.subscriber_exists': { status: 409, smtp: '550 5.7.1', title: 'Subscriber already exists' },
  'marketing.invalid_email': { status: 400, smtp: '501 5.5.4', title: 'Invalid subscriber email address' },
  'marketing.invalid_phone': { status: 400, smtp: '501 5.5.4', title: 'Invalid subscriber phone number' },
  'marketing.not_a_member': { status: 404, smtp: '550 5.1.1', title: 'Subscriber is not on the list' },
  'marketing.template_invalid': { status: 400, smtp: '501 5.5.4', title: 'Invalid mailing template' },
  'marketing.mailing_not_found': { status: 404, smtp: '550 5.1.1', title: 'Campaign mailing not found' },
  'marketing.mailing_invalid': { status: 400, smtp: '501 5.5.4', title: 'Invalid campaign mailing' },
  'marketing.subject_taken': {
    status: 409,
    smtp: '550 5.7.1',
    title: 'Campaign mailing subject already used',
  },
  'marketing.mailing_in_use': { status: 409, smtp: '550 5.7.1', title: 'Campaign mailing is being sent' },
  'marketing.sender_invalid': {
    status: 422,
    smtp: '550 5.7.1',
    title: 'Campaign mailing sender cannot send',
  },
  'marketing.send_not_found': { status: 404, smtp: '550 5.1.1', title: 'Campaign mailing send not found' },
  'marketing.delivery_not_found': {
    status: 404,
    smtp: '550 5.1.1',
    title: 'Campaign mailing delivery not found',
  },
  'marketing.tracking_link_not_found': { status: 404, smtp: '550 5.1.1', title: 'Tracking link not found' },
  'marketing.send_state': {
    status: 409,
    smtp: '550 5.7.1',
    title: 'Campaign mailing send state does not allow this',
  },
  'marketing.drip_not_found': { status: 404, smtp: '550 5.1.1', title: 'Drip campaign not found' },
  'marketing.drip_invalid': { status: 422, smtp: '550 5.7.1', title: 'Invalid drip campaign' },
  'marketing.drip_state': {
    status: 409,
    smtp: '550 5.7.1',
    title: 'Drip campaign state does not allow this',
  },
  'marketing.import_not_found': { status: 404, smtp: '550 5.1.1', title: 'Subscriber import not found' },
  'marketing.import_invalid': { status: 400, smtp: '501 5.5.4', title: 'Invalid subscriber import' },
  'marketing.import_state': {
    status: 409,
    smtp: '550 5.7.1',
    title: 'Subscriber import state does not allow this',
  },
  'user.not_found': { status: 404, smtp: '550 5.1.1', title: 'User not found' },
  'user.email_invalid': { status: 400, smtp: '501 5.5.4', title: 'Invalid user email address' },
  'user.email_taken': { status: 409, smtp: '550 5.7.1', title: 'User email address already used' },
  'user.role_invalid': { status: 400, smtp: '501 5.5.4', title: 'Invalid user role' },
  'user.password_weak': { status: 400, smtp: '501 5.5.4', title: 'Password does not meet the rules' },
  'user.link_invalid': { status: 400, smtp: '501 5.5.4', title: 'One-time link not valid' },
  'user.last_owner': { status: 409, smtp: '550 5.7.1', title: 'The last owner cannot be removed' },
  'console.sign_in_failed': { status: 401, smtp: '535 5.7.8', title: 'Sign-in failed' },
  'console.locked': { status: 429, smtp: '451 4.7.1', title: 'Sign-in temporarily locked' },
  'console.csrf': { status: 403, smtp: '550 5.7.1', title: 'Form token missing or wrong' },
  'console.forbidden': { status: 403, smtp: '550 5.7.1', title: 'Not allowed for this user' },
  'marketing.filter_invalid': { status: 400, smtp: '501 5.5.4', title: 'Invalid dynamic list filters' },
  'marketing.dynamic_list_not_found': { status: 404, smtp: '550 5.1.1', title: 'Dynamic list not found' },
  'marketing.dynamic_list_name_invalid': {
    status: 400,
    smtp: '501 5.5.4',
    title: 'Invalid dynamic list name',
  },
  'marketing.subscription_not_found': { status: 404, smtp: '550 5.1.1', title: 'Subscription not found' },
  'marketing.custom_field_not_found': {
    status: 404,
    smtp: '550 5.1.1',
    title: 'Custom field type not found',
  },
  'marketing.custom_field_invalid': { status: 400, smtp: '501 5.5.4', title: 'Invalid custom field type' },
  'marketing.bulk_job_not_found': { status: 404, smtp: '550 5.1.1', title: 'Bulk job not found' },
  'marketing.bulk_job_not_ready': { status: 409, smtp: '550 5.7.1', title: 'Bulk job has no file yet' },
  'marketing.download_key_invalid': { status: 403, smtp: '550 5.7.1', title: 'Download key does not match' },
  internal: { status: 500, smtp: '451 4.3.0', title: 'Internal server error' },
  unavailable: { status: 503, smtp: '421 4.3.2', title: 'Service unavailable' },
} as const satisfies Record<string, ErrorSpec>;

/** A code from the catalogue. */
export type ErrorCode = keyof typeof CATALOGUE;
