/**
 * The delivery queue of transactional mail. Marketing mail has a lane of its own (`marketing.delivery`), so campaigns
 * never delay transactional mail.
 */
export const DELIVERY_QUEUES = { transactional: 'email.transactional' } as const;
export type Lane = keyof typeof DELIVERY_QUEUES;

/** The payload of a delivery work row: one recipient of one message. */
export interface DeliveryJob {
  recipientId: number;
}
