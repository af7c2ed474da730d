/**
 * The delivery queue of transactional mail. Marketing mail has a lane of its own (`marketing.delivery`), so campaigns
 * never delay transactional mail.
 */
export const TRANSACTIONAL_QUEUE = 'email.transactional';
