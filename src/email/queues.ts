/**
 * The delivery queue of transactional mail. Marketing mail has a lane of its own (`marketing.delivery`), so campaigns
 * never delay transactional mail.
 */
export const TRANSACTIONAL_QUEUE = 'email.transactional';

/** Scheduled messages coming due: one work row per (message, revision), run at its time. */
export const SCHEDULED_QUEUE = 'email.scheduled';
